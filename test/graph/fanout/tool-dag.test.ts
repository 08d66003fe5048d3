// Model-planned tool DAGs through defineAgent: `$ref` arguments, scheduling by readiness, refusals, approval and resume.
import { HumanMessage, type AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, definePolicy, defineTool, readPendingActions, resumeCommand, type AgentRunConfig, type AgentTool, type ScriptedToolCall, type ToolStep } from "agentrt";
import { argsHash, readEnvelope } from "agentrt/tools";
import { ScriptedChatModel } from "agentrt/testing";

/** A model that plans `calls` in one turn, then answers with the status or error code of each call, in its order. */
function planner(calls: ScriptedToolCall[]) {
  return new ScriptedChatModel({
    script: ({ turn, messages }) => {
      if (turn === 1) return { toolCalls: calls };
      const asked = messages.find((m) => m.getType() === "ai") as AIMessage;
      const results = new Map(toolMessages(messages).map((m) => [m.tool_call_id, readEnvelope(m)]));
      return { content: (asked.tool_calls ?? []).map((c) => results.get(c.id ?? "")?.error?.code ?? results.get(c.id ?? "")?.status).join(",") };
    },
  });
}

const toolMessages = (messages: BaseMessage[]) => messages.filter((m) => m.getType() === "tool") as ToolMessage[];
const ref = (n: number, path?: string) => ({ $ref: `call_${n}`, ...(path === undefined ? {} : { path }) });
const step = (steps: ToolStep[], tool: string) => steps.find((s) => s.tool === tool) as ToolStep;

function orderTools(log: string[], options: { hold?: Promise<void> } = {}) {
  const getOrder = defineTool({
    name: "get_order", description: "Order", risk: "read", schema: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => {
      log.push(`get_order:${order_id}`);
      await new Promise((r) => setTimeout(r, 15));
      return { id: order_id, items: [{ sku: "PRN-80", qty: 40 }] };
    },
  });
  const stock = defineTool({
    name: "check_stock", description: "Stock", risk: "read", schema: z.object({ sku: z.string() }),
    execute: async ({ sku }) => {
      log.push(`check_stock:${sku}`);
      await new Promise((r) => setTimeout(r, 15));
      return { sku, available: 18 };
    },
  });
  const ship = defineTool({
    name: "track", description: "Shipment", risk: "read", schema: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => {
      log.push(`track:${order_id}`);
      await new Promise((r) => setTimeout(r, 15));
      return { order_id, status: "held" };
    },
  });
  // Independent and slow: finishes only after check_stock did, which a superstep barrier would forbid.
  const audit = defineTool({
    name: "audit", description: "Audit", risk: "read", schema: z.object({}),
    execute: async () => {
      await Promise.race([options.hold, new Promise((r) => setTimeout(r, 3000))]);
      return { ok: true };
    },
  });
  return [getOrder, stock, ship, audit] as AgentTool[];
}

/** A destructive tool the policy below sends to the requester for approval. */
function cancelItemTool(log: string[]) {
  return defineTool({
    name: "cancel_item", description: "Cancel", risk: "destructive", schema: z.object({ sku: z.string() }),
    execute: ({ sku }) => { log.push(`cancel:${sku}`); return { canceled: sku }; },
  });
}
const approveCancels = definePolicy({ rules: [{ tools: ["cancel_item"], effect: "approve", approvers: ["$requester"] }] });

const config = (thread: string): AgentRunConfig => ({ configurable: { thread_id: thread, run_id: `run_${thread}`, user: "alice" } });

describe("model-planned tool DAGs", () => {
  it("starts each call when the calls it refers to finished, substitutes values, and needs one model turn for the plan", async () => {
    const log: string[] = [];
    let stockDone!: () => void;
    const hold = new Promise<void>((resolve) => { stockDone = resolve; });
    const tools = orderTools(log, { hold });
    const watched = tools.map((t): AgentTool => t.name === "check_stock"
      ? { ...t, execute: async (args: unknown, ctx: Parameters<AgentTool["execute"]>[1]) => { const out = await t.execute(args, ctx); stockDone(); return out; } }
      : t);
    const graph = defineAgent({
      model: planner([
        { name: "get_order", args: { order_id: "10086" } },
        { name: "check_stock", args: { sku: ref(1, "items[0].sku") } },
        { name: "track", args: { order_id: ref(1, "id") } },
        { name: "audit", args: {} },
      ]),
      tools: watched,
    }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("check 10086")] }, config("plan"));
    expect(out.result).toBe("done,done,done,done");
    expect(out.usage.modelCalls).toBe(2);
    expect(log.slice(1).sort()).toEqual(["check_stock:PRN-80", "track:10086"]);
    const [order, stock, track, audit] = ["get_order", "check_stock", "track", "audit"].map((t) => step(out.steps, t));
    expect(stock!.startedAt).toBeGreaterThanOrEqual(order!.endedAt);
    expect(track!.startedAt).toBeGreaterThanOrEqual(order!.endedAt);
    // the two dependents overlapped, and the first finished before the independent slow call ended
    expect(stock!.startedAt).toBeLessThan(track!.endedAt);
    expect(track!.startedAt).toBeLessThan(stock!.endedAt);
    expect(stock!.endedAt).toBeLessThanOrEqual(audit!.endedAt);
    expect(toolMessages(out.messages).map((m) => readEnvelope(m)?.tool).sort()).toEqual(["audit", "check_stock", "get_order", "track"]);
  });

  it("refuses a missing reference, a cycle, a bad path and a reference to a failed call with TOOL_REF_* results; the rest runs", async () => {
    const log: string[] = [];
    const failing = defineTool({
      name: "broken", description: "Fails", risk: "read", schema: z.object({}),
      execute: () => { throw new Error("boom"); },
    });
    const graph = defineAgent({
      model: planner([
        { name: "get_order", args: { order_id: "1" } },
        { name: "check_stock", args: { sku: { $ref: "nowhere" } } },
        { name: "track", args: { order_id: ref(4) } },
        { name: "track", args: { order_id: ref(3) } },
        { name: "check_stock", args: { sku: ref(1, "items[7].sku") } },
        { name: "broken", args: {} },
        { name: "track", args: { order_id: ref(6, "id") } },
        { name: "check_stock", args: { sku: ref(1, "items[0].sku") } },
      ]),
      tools: [...orderTools(log), failing],
    }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, config("problems"));
    expect(out.error).toBeNull();
    expect(out.result).toBe([
      "done", "TOOL_REF_MISSING", "TOOL_REF_CYCLE", "TOOL_REF_CYCLE", "TOOL_REF_BAD_PATH", "TOOL_FAILED", "TOOL_REF_FAILED", "done",
    ].join(","));
    const messages = toolMessages(out.messages).map((m) => readEnvelope(m)?.error?.message ?? "");
    expect(messages).toContainEqual(expect.stringMatching(/refers to nowhere, which is not a call of this turn/));
    expect(messages).toContainEqual(expect.stringMatching(/path "items\[7\]\.sku" does not exist/));
    expect(log.sort()).toEqual(["check_stock:PRN-80", "get_order:1"]);
  });

  it("validates the resolved arguments against the tool's schema", async () => {
    const log: string[] = [];
    const graph = defineAgent({
      model: planner([{ name: "get_order", args: { order_id: "1" } }, { name: "check_stock", args: { sku: ref(1, "items[0].qty") } }]),
      tools: orderTools(log),
    }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, config("schema"));
    expect(out.result).toBe("done,TOOL_ARGS_INVALID");
    expect(step(out.steps, "check_stock").error?.message).toMatch(/sku/);
  });

  it("asks approval for the resolved arguments, and the resume does not run the referenced call again", async () => {
    const log: string[] = [];
    const cancel = cancelItemTool(log);
    const checkpointer = new MemorySaver();
    // A fresh compile per call stands in for another process sharing the checkpointer.
    const compile = () => defineAgent({
      model: planner([
        { name: "get_order", args: { order_id: "7" } },
        { name: "cancel_item", args: { sku: ref(1, "items[0].sku") } },
        { name: "track", args: { order_id: ref(1, "id") } },
      ]),
      tools: [...orderTools(log), cancel],
      policy: approveCancels,
    }).compile({ checkpointer });
    const first = await compile().invoke({ messages: [new HumanMessage("cancel")] }, config("approve"));
    expect((first as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    const pending = readPendingActions(await compile().getState(config("approve")));
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ tool: "cancel_item", args: { sku: "PRN-80" }, args_hash: argsHash("cancel_item", { sku: "PRN-80" }) });
    const action = pending[0]!;
    const out = await compile().invoke(
      resumeCommand(pending, { action_id: action.action_id, args_hash: action.args_hash, decision: "approve", by: "alice" }),
      config("approve"),
    );
    expect(out.result).toBe("done,done,done");
    expect(log.sort()).toEqual(["cancel:PRN-80", "get_order:7", "track:7"]);
  });

  it("lists two approvals of one planned group separately and resumes them one at a time", async () => {
    const log: string[] = [];
    const cancel = cancelItemTool(log);
    const checkpointer = new MemorySaver();
    const compile = () => defineAgent({
      model: planner([
        { name: "get_order", args: { order_id: "7" } },
        { name: "cancel_item", args: { sku: ref(1, "items[0].sku") } },
        { name: "cancel_item", args: { sku: ref(1, "id") } },
      ]),
      tools: [...orderTools(log), cancel],
      policy: approveCancels,
    }).compile({ checkpointer });
    await compile().invoke({ messages: [new HumanMessage("cancel")] }, config("two"));
    const pending = readPendingActions(await compile().getState(config("two")));
    expect(pending.map((p) => p.args.sku).sort()).toEqual(["7", "PRN-80"]);
    const approve = (p: (typeof pending)[number]) => ({ action_id: p.action_id, args_hash: p.args_hash, decision: "approve" as const, by: "alice" });
    const first = pending.find((p) => p.args.sku === "7")!;
    await compile().invoke(resumeCommand(pending, approve(first)), config("two"));
    const left = readPendingActions(await compile().getState(config("two")));
    expect(left.map((p) => p.args.sku)).toEqual(["PRN-80"]);
    const out = await compile().invoke(resumeCommand(left, approve(left[0]!)), config("two"));
    expect(out.result).toBe("done,done,done");
    expect(log.sort()).toEqual(["cancel:7", "cancel:PRN-80", "get_order:7"]);
  });

  it("after an abort right when a dependent started, the resume re-runs only the unfinished calls", async () => {
    const log: string[] = [];
    const abort = new AbortController();
    let firstAttempt = true;
    const tools = orderTools(log).map((t): AgentTool => t.name === "track"
      ? {
        ...t,
        execute: async (args: unknown, ctx: Parameters<AgentTool["execute"]>[1]) => {
          // the process "dies" once get_order's result is saved and before track finishes
          if (firstAttempt) { firstAttempt = false; abort.abort(); await new Promise(() => undefined); }
          return t.execute(args, ctx);
        },
      }
      : t);
    const checkpointer = new MemorySaver();
    const compile = () => defineAgent({
      model: planner([{ name: "get_order", args: { order_id: "9" } }, { name: "track", args: { order_id: ref(1, "id") } }]),
      tools,
    }).compile({ checkpointer });
    await expect(compile().invoke({ messages: [new HumanMessage("go")] }, { ...config("abort"), signal: abort.signal })).rejects.toThrow();
    expect(log).toEqual(["get_order:9"]);
    const out = await compile().invoke(null, config("abort"));
    expect(out.result).toBe("done,done");
    expect(log).toEqual(["get_order:9", "track:9"]);
  });
});
