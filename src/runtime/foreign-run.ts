/**
 * What executing a foreign agent's run adds: the callback that reports its model and tool calls, and its answer.
 * @module
 */
import { isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { ForeignCallHooks } from "../graph/foreign-call-hooks.js";
import type { AgentHooks } from "../graph/hooks.js";
import { reportsOwnCalls } from "../graph/own-nodes.js";

function messagesOf(values: Record<string, unknown> | undefined): BaseMessage[] {
  const messages = values?.messages;
  return Array.isArray(messages) ? (messages as BaseMessage[]) : [];
}

/**
 * The callbacks of a run's config: a foreign graph's calls reported to `hooks`, turns counted on from the checkpoint.
 * None for a graph of agentrt nodes only, which report their own calls (a handler would cost every node a callback run).
 */
export function foreignCallbacks(graph: unknown, hooks: AgentHooks, values: Record<string, unknown> | undefined): ForeignCallHooks[] | undefined {
  if (reportsOwnCalls(graph)) return undefined;
  const turns = messagesOf(values).filter((m) => typeof m?.getType === "function" && m.getType() === "ai").length;
  return [new ForeignCallHooks(hooks, turns)];
}

/** The text of the final AI message (one asking for no tool), or undefined when the state does not end in one. */
export function foreignAnswer(values: Record<string, unknown>): string | undefined {
  const last = messagesOf(values).at(-1);
  if (last === undefined || !isAIMessage(last) || (last.tool_calls?.length ?? 0) > 0) return undefined;
  return typeof last.content === "string" ? last.content : last.text;
}
