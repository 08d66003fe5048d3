/**
 * Small helpers the scenario scripts use to read a conversation: the user's
 * request and the tool results so far (as external-data envelopes).
 * @module
 */
import { isAIMessage, isHumanMessage, isToolMessage, type BaseMessage } from "@langchain/core/messages";
import { readEnvelope, type ExternalDataEnvelope } from "agentrt/tools";
import type { ScriptedReply } from "agentrt/testing";

/** The text of the first user message. */
export function userRequest(messages: readonly BaseMessage[]): string {
  const first = messages.find((m) => isHumanMessage(m));
  return typeof first?.content === "string" ? first.content : JSON.stringify(first?.content ?? "");
}

/** Tool results by tool name, oldest first. */
export function toolResults(messages: readonly BaseMessage[]): Map<string, ExternalDataEnvelope[]> {
  const byTool = new Map<string, ExternalDataEnvelope[]>();
  for (const message of messages) {
    if (!isToolMessage(message)) continue;
    const envelope = readEnvelope(message);
    if (envelope === undefined) continue;
    byTool.set(envelope.tool, [...(byTool.get(envelope.tool) ?? []), envelope]);
  }
  return byTool;
}

/** The latest result of one tool, if it was called. */
export function lastResult(messages: readonly BaseMessage[], tool: string): ExternalDataEnvelope | undefined {
  return toolResults(messages).get(tool)?.at(-1);
}

/** The data of a tool's latest successful result. */
export function lastData<T>(messages: readonly BaseMessage[], tool: string): T | undefined {
  const result = lastResult(messages, tool);
  return result?.status === "done" ? (result.data as T) : undefined;
}

/** How many model turns have produced tool calls so far. */
export function toolTurns(messages: readonly BaseMessage[]): number {
  return messages.filter((m) => isAIMessage(m) && (m.tool_calls?.length ?? 0) > 0).length;
}

// SIM_FAULT is what the simulated systems raise for AGENTRT_SIM_FAULTS: a transient failure like a 503.
const RETRYABLE = new Set(["TOOL_FAILED", "TOOL_TIMEOUT", "SIM_FAULT"]);

/** A failed result that a new attempt may cure (a transient fault or timeout). */
export function isRetryable(result: ExternalDataEnvelope | undefined): boolean {
  return result !== undefined && result.status === "failed" && RETRYABLE.has(result.error?.code ?? "");
}

/** A failed result worth asking for again (a transient fault or timeout), up to `max` tries of that tool. */
export function shouldRetry(messages: readonly BaseMessage[], tool: string, max = 3): boolean {
  const results = toolResults(messages).get(tool) ?? [];
  return isRetryable(results.at(-1)) && results.length < max;
}

/**
 * The next reply while `tool` has no successful result: `ask()` for a first or
 * retryable attempt, else an honest answer that it failed; undefined once it succeeded.
 */
export function untilDone(messages: readonly BaseMessage[], tool: string, ask: () => ScriptedReply, what: string): ScriptedReply | undefined {
  if (lastData(messages, tool) !== undefined) return undefined;
  const result = lastResult(messages, tool);
  if (result === undefined || shouldRetry(messages, tool)) return ask();
  return { content: `I could not ${what}: ${tool} failed (${result.error?.message ?? "unknown error"}).` };
}
