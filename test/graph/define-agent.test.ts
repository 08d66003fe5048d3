import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool } from "agentrt";
import { AGENT_NODES } from "agentrt/graph";
import { ScriptedChatModel } from "agentrt/testing";

describe("defineAgent", () => {
  it("a two-tool agent fits in a few lines and answers", async () => {
    // --- the user's whole agent ---
    const getOrder = defineTool({
      name: "get_order", description: "Look up an order", risk: "read",
      schema: z.object({ id: z.string() }), execute: ({ id }) => ({ id, status: "delayed" }),
    });
    const notify = defineTool({
      name: "notify", description: "Message a person", risk: "write",
      schema: z.object({ to: z.string(), text: z.string() }), execute: () => ({ sent: true }),
    });
    const model = new ScriptedChatModel({
      script: ({ turn }) => [
        { toolCalls: [{ name: "get_order", args: { id: "10086" } }] },
        { toolCalls: [{ name: "notify", args: { to: "rep", text: "10086 delayed" } }] },
        { content: "Order 10086 is delayed; the rep was notified." },
      ][turn - 1]!,
    });
    const graph = defineAgent({ model, tools: [getOrder, notify] }).compile({ checkpointer: new MemorySaver() });
    // --- end ---
    const out = await graph.invoke({ messages: [new HumanMessage("Check order 10086")] }, { configurable: { thread_id: "t1" } });
    expect(out.result).toBe("Order 10086 is delayed; the rep was notified.");
    expect(out.steps.map((s) => [s.tool, s.status])).toEqual([["get_order", "done"], ["notify", "done"]]);
    expect(model.calls.map((c) => c.tools)).toEqual([["get_order", "notify"], ["get_order", "notify"], ["get_order", "notify"]]);
  });

  it("compiles without a checkpointer and draws as Mermaid", async () => {
    const model = new ScriptedChatModel({ script: () => ({ content: "hi" }) });
    const graph = defineAgent({ model, tools: [] }).compile();
    const mermaid = graph.getGraph().drawMermaid();
    expect(mermaid).toContain("model -.-> tools;");
    expect(mermaid).toContain("tools --> model;");
    const out = await graph.invoke({ messages: [new HumanMessage("hello")] });
    expect(out.result).toBe("hi");
  });

  it("entry: START runs the named node, added after defineAgent, before the first model turn", async () => {
    const model = new ScriptedChatModel({
      script: ({ messages }) => ({ content: messages.map((m) => m.text).join(" | ") }),
    });
    const graph = defineAgent({ model, tools: [], entry: "greet" })
      .addNode("greet", () => ({ messages: [new AIMessage("greeted first")] }))
      .addEdge("greet", AGENT_NODES.model)
      .compile();
    const out = await graph.invoke({ messages: [new HumanMessage("hello")] });
    expect(out.result).toBe("hello | greeted first");
    expect(graph.getGraph().drawMermaid()).toContain("__start__ --> greet;");
  });

  it("entry: compile fails clearly when the entry node was never added", () => {
    const model = new ScriptedChatModel({ script: () => ({ content: "hi" }) });
    expect(() => defineAgent({ model, tools: [], entry: "missing" }).compile()).toThrow(/missing/);
  });
});
