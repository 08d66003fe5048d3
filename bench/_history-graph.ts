/**
 * The graph of the history bench: every turn asks for one destructive call (so it waits for approval), and once
 * that call's result is in, answers. The scripted model looks only at the current turn (after the last user
 * message), so a thread of any length behaves the same; the tool writes nothing outside its ledger entry.
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { defineAgent, defineTool } from "../src/index.js";
import { ScriptedChatModel } from "../src/testing/index.js";

const restart = defineTool({
  name: "restart_service",
  description: "Restart a service (destructive: needs approval).",
  schema: z.object({ service: z.string() }),
  risk: "destructive",
  idempotent: true,
  execute: ({ service }) => ({ service, restarted: true }),
});

/** The messages of the current turn: everything after the last user message. */
function currentTurn(messages: readonly BaseMessage[]): BaseMessage[] {
  const last = messages.findLastIndex((m) => m instanceof HumanMessage || m.getType() === "human");
  return messages.slice(last + 1);
}

/** The history bench's agent (no checkpointer: the runtime attaches one). */
export const graph = defineAgent({
  model: new ScriptedChatModel({
    script: ({ messages }) => currentTurn(messages).some((m) => m instanceof ToolMessage || m.getType() === "tool")
      ? { content: "Restarted." }
      : { content: "Restarting the service; this needs your approval.", toolCalls: [{ name: "restart_service", args: { service: "payments" } }] },
  }),
  tools: [restart],
  instructions: "Restart the service the user names.",
}).compile();
