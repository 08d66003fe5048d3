// The scale bench's latency-bound agent: what real agents spend their time on is waiting — a model turn of about a
// second (BENCH_MODEL_MS, default 1000: ScriptedChatModel's latencyMs) and tools of a couple of hundred ms
// (BENCH_TOOL_MS, default 200) — not CPU. The tool double only sleeps: no database, no lock, no shared state, so
// whatever limits throughput is agentrt and PostgreSQL, not the workload. Three model turns, the first two each
// asking for two calls in parallel (~3.4 s a run). Each call appends "<run> <call> <worker> <ms>" to BENCH_TOOL_LOG
// (O_APPEND, one write), the bench's count of calls performed twice and of calls after a takeover.
import { appendFileSync } from "node:fs";
import { isAIMessage } from "@langchain/core/messages";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import { ScriptedChatModel, type ChatScript } from "../src/testing/index.js";

const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? 1000);
const TOOL_MS = Number(process.env.BENCH_TOOL_MS ?? 200);
const TURNS_WITH_CALLS = 2;
const CALLS_PER_TURN = 2;

const lookUp = defineTool({
  name: "look_up",
  description: "Looks something up (a bench double: it only waits).",
  schema: z.object({ topic: z.string() }),
  risk: "read",
  execute: async (args, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, TOOL_MS));
    const log = process.env.BENCH_TOOL_LOG;
    if (log !== undefined) appendFileSync(log, `${ctx.runId} ${ctx.toolCallId} ${process.env.BENCH_WORKER_ID ?? process.pid} ${Date.now()}\n`);
    return { topic: args.topic, found: true };
  },
});

const script: ChatScript = ({ messages }) => {
  const turn = messages.filter((m) => isAIMessage(m)).length;
  if (turn >= TURNS_WITH_CALLS) return { content: "Done." };
  return {
    content: `Looking up part ${turn + 1}.`,
    toolCalls: Array.from({ length: CALLS_PER_TURN }, (_, i) => ({ name: "look_up", args: { topic: `t${turn}-${i}` } })),
  };
};

/** The bench's agent (loaded by workers through a generated langgraph.json). */
export const graph = defineAgent({
  model: new ScriptedChatModel({ script, latencyMs: MODEL_MS }),
  tools: [lookUp],
  instructions: "Look things up, then answer.",
}).compile();
