import { z } from "zod";
import { defineAgent, defineTool, modelFromEnv, ScriptedChatModel } from "agentrt";

const getOrder = defineTool({
  name: "get_order", description: "Look up an order by id", risk: "read",
  schema: z.object({ id: z.string() }), execute: async ({ id }) => ({ id, status: "delayed" }),
});
const refund = defineTool({
  name: "refund", description: "Refund an order", risk: "destructive",   // needs approval by default
  schema: z.object({ id: z.string() }), execute: async ({ id }, ctx) => ({ refunded: id, key: ctx.idempotencyKey }),
});
// OPENAI_API_KEY set: ChatOpenAI (AGENTRT_MODEL, default gpt-4o-mini). Unset: this script plays the model, offline.
const offline = new ScriptedChatModel({
  script: ({ turn }) =>
    turn === 1 ? { toolCalls: [{ name: "get_order", args: { id: "10086" } }] }
    : turn === 2 ? { toolCalls: [{ name: "refund", args: { id: "10086" } }] }
    : { content: "Order 10086 was delayed; it is refunded now." },
});
/** Listed in examples/langgraph.json as refund_agent; the runtime attaches the SQLite checkpointer. */
export const graph = defineAgent({ model: modelFromEnv({ scripted: offline }), tools: [getOrder, refund] }).compile();
