import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, definePolicy, defineTool, ScriptedChatModel } from "agentrt";
import { ToolIndex } from "agentrt/tools";

const tool = (name: string, description: string, risk: "read" | "destructive" = "read") =>
  defineTool({ name, description, risk, tags: ["orders"], schema: z.object({}), execute: () => null });

const tools = [
  tool("delete_order", "Delete an order permanently", "destructive"),
  tool("get_order", "Look up an order by id"),
  tool("cancel_order", "Cancel an order that has not shipped"),
  tool("ping", "Check the service is up"),
  ...Array.from({ length: 150 }, (_, i) => tool(`noise_${i}`, `Unrelated utility number ${i}`)),
];
const policy = definePolicy({ rules: [{ tools: ["delete_order"], users: ["mallory"], effect: "deny" }] });

async function boundFor(user: string, request: string, pinned: string[]): Promise<string[]> {
  const model = new ScriptedChatModel({ script: () => ({ content: "ok" }) });
  const graph = defineAgent({ model, tools, policy, toolSelection: { max: 3, pinned } }).compile({ checkpointer: new MemorySaver() });
  await graph.invoke({ messages: [new HumanMessage(request)] }, { configurable: { thread_id: "t", user } });
  return model.calls[0]!.tools;
}

describe("tool discovery with policy", () => {
  it("never binds a tool the policy denies to this user, even when it ranks first or is pinned", async () => {
    const forMallory = await boundFor("mallory", "delete order 42", ["ping", "delete_order"]);
    expect(forMallory).not.toContain("delete_order");
    expect(forMallory).toContain("ping");
    const forAlice = await boundFor("alice", "delete order 42", ["ping"]);
    expect(forAlice).toContain("delete_order");
  });

  it("always binds pinned tools, whatever the request", async () => {
    for (const request of ["delete order 42", "weather in Oslo", ""]) {
      expect(await boundFor("alice", request, ["ping"])).toContain("ping");
    }
  });

  it("ToolIndex.select drops invisible tools from search hits and pins", () => {
    const index = ToolIndex.create(tools);
    const names = index.select("delete order", { max: 3, pinned: ["delete_order"], visible: (t) => t.name !== "delete_order" }).map((t) => t.name);
    expect(names).not.toContain("delete_order");
    expect(names.length).toBeGreaterThan(0);
  });
});
