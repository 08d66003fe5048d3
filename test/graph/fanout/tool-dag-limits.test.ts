// Concurrency limits inside a model-planned tool DAG: calls released together by one reference still queue on their tool's cap.
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type AgentTool } from "agentrt";
import { toolLimits } from "agentrt/resilience";
import { ScriptedChatModel } from "agentrt/testing";

describe("model-planned tool DAGs under concurrency limits", () => {
  it("runs three dependents of one call no more than their tool's cap at once, all after the call they refer to", async () => {
    const spans: { name: string; start: number; end: number }[] = [];
    let clock = 0;
    const timed = (name: string, result: () => unknown) => async () => {
      const span = { name, start: clock++, end: -1 };
      spans.push(span);
      await new Promise((r) => setTimeout(r, 10));
      span.end = clock++;
      return result();
    };
    toolLimits.configure("dag_capped_check", { concurrency: 1 });
    const source = defineTool({
      name: "dag_source", description: "Source", risk: "read", schema: z.object({}),
      execute: timed("source", () => ({ skus: ["a", "b", "c"] })),
    });
    const capped = defineTool({
      name: "dag_capped_check", description: "Capped", risk: "read", schema: z.object({ sku: z.string() }),
      execute: (args: { sku: string }) => timed(`check:${args.sku}`, () => ({ ok: true }))(),
    });
    const ref = (i: number) => ({ sku: { $ref: "call_1", path: `skus[${i}]` } });
    const model = new ScriptedChatModel({
      script: ({ turn }) => turn === 1
        ? { toolCalls: [{ name: "dag_source", args: {} }, ...[0, 1, 2].map((i) => ({ name: "dag_capped_check", args: ref(i) }))] }
        : { content: "done" },
    });
    const graph = defineAgent({ model, tools: [source, capped] as AgentTool[] }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "limits", run_id: "run_limits", user: "alice" } });
    expect(out.steps.map((s: { status: string }) => s.status)).toEqual(["done", "done", "done", "done"]);
    const checks = spans.filter((s) => s.name.startsWith("check:")).sort((a, b) => a.start - b.start);
    expect(checks.map((s) => s.name).sort()).toEqual(["check:a", "check:b", "check:c"]);
    const sourceEnd = spans.find((s) => s.name === "source")!.end;
    for (const check of checks) expect(check.start).toBeGreaterThan(sourceEnd);
    // cap 1: each check starts only after the previous one ended
    for (let i = 1; i < checks.length; i++) expect(checks[i]!.start).toBeGreaterThan(checks[i - 1]!.end);
  });
});
