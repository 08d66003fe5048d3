import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, isAIMessage, isToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, ScriptedChatModel } from "agentrt";
import { estimateTokens, fitContext } from "../../src/graph/context-budget.js";
import type { ContextTrimEvent } from "../../src/graph/hooks.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agentrt-context-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Every tool result in `messages` answers a call of an AI message before it. */
function noOrphans(messages: readonly BaseMessage[]): boolean {
  const calls = new Set<string>();
  for (const m of messages) {
    if (isAIMessage(m)) for (const c of m.tool_calls ?? []) calls.add(c.id ?? "");
    if (isToolMessage(m) && !calls.has(m.tool_call_id)) return false;
  }
  return true;
}

function history(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [new SystemMessage("You are careful."), new HumanMessage("Summarise the incident reports.")];
  for (let i = 0; i < turns; i++) {
    out.push(new AIMessage({ content: "", tool_calls: [{ id: `a${i}`, name: "read", args: { i } }, { id: `b${i}`, name: "read", args: { i } }] }));
    out.push(new ToolMessage({ content: `report ${i} `.repeat(40), tool_call_id: `a${i}` }), new ToolMessage({ content: `other ${i} `.repeat(40), tool_call_id: `b${i}` }));
  }
  return out;
}

describe("fitContext", () => {
  it("trims the oldest turns to the budget, keeping instructions, the first request and call/result pairs", async () => {
    const full = history(20);
    const { messages, trim } = await fitContext(full, { maxTokens: 1200, workspaceRoot: root }, "run_1");
    expect(messages.slice(0, 2)).toEqual(full.slice(0, 2));
    expect(estimateTokens(messages)).toBeLessThanOrEqual(1200);
    expect(trim.droppedMessages).toBeGreaterThan(0);
    expect(trim.droppedMessages).toBe(full.length - messages.length);
    expect(trim.droppedTokens).toBeGreaterThan(0);
    expect((messages.at(-1) as ToolMessage).tool_call_id).toBe((full.at(-1) as ToolMessage).tool_call_id);
    expect(noOrphans(messages)).toBe(true);
    expect(isAIMessage(messages[2]!)).toBe(true);
  });

  it("leaves a context under budget alone", async () => {
    const full = history(2);
    const { messages, trim } = await fitContext(full, { maxTokens: 100_000, workspaceRoot: root }, "run_1");
    expect(messages).toEqual(full);
    expect(trim).toMatchObject({ droppedMessages: 0, truncatedResults: 0 });
  });

  it("cuts a large tool result in context and keeps it whole in the run's workspace", async () => {
    const big = "x".repeat(10_000);
    const full = [new HumanMessage("go"), new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "dump", args: {} }] }), new ToolMessage({ content: big, tool_call_id: "c1" })];
    const { messages, trim } = await fitContext(full, { maxTokens: 100_000, maxToolResultChars: 500, workspaceRoot: root }, "run_7");
    const text = messages[2]!.text;
    expect(text.length).toBeLessThan(700);
    expect(text).toContain("context/tool-results/c1.txt");
    expect(trim).toMatchObject({ truncatedResults: 1, files: ["context/tool-results/c1.txt"] });
    const files = readFileSync(join(root, "run_7", "context/tool-results/c1.txt"), "utf8");
    expect(files).toBe(big);
  });
});

describe("defineAgent context budget", () => {
  it("sends each model call a context within budget and reports the cut through onContextTrim", async () => {
    const page = defineTool({
      name: "read_page", description: "Read one page of the log", risk: "read", schema: z.object({ n: z.number() }),
      execute: ({ n }) => `page ${n}: ${"log line ".repeat(300)}`,
    });
    const seen: BaseMessage[][] = [];
    const model = new ScriptedChatModel({
      script: ({ messages }) => {
        seen.push(messages);
        const last = messages.at(-1);
        const n = last && isToolMessage(last) ? Number(/page (\d+)/.exec(last.text)?.[1] ?? 0) : 0;
        return n < 6 ? { toolCalls: [{ name: "read_page", args: { n: n + 1 } }] } : { content: "read six pages" };
      },
    });
    const trims: ContextTrimEvent[] = [];
    const graph = defineAgent({
      model, tools: [page], instructions: "Read the log.", limits: { maxTurns: 20 },
      context: { maxTokens: 900, maxToolResultChars: 1000, workspaceRoot: root }, hooks: { onContextTrim: (e) => trims.push(e) },
    }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("read the log")] }, { configurable: { thread_id: "t", run_id: "run_9" } });
    expect(out.result).toBe("read six pages");
    for (const messages of seen) {
      expect(estimateTokens(messages)).toBeLessThanOrEqual(900);
      expect(messages.slice(0, 2).map((m) => m.getType())).toEqual(["system", "human"]);
      expect(noOrphans(messages)).toBe(true);
    }
    expect(trims.some((t) => t.droppedMessages > 0)).toBe(true);
    expect(trims.some((t) => t.truncatedResults > 0)).toBe(true);
    expect(out.messages.length).toBe(14);
  });
});
