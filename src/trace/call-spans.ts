/**
 * The spans of finished model and tool calls: what {@link TraceRecorder.recordModelCall} and
 * {@link TraceRecorder.recordToolCall} start them with.
 * @module
 */
import type { StartSpanOptions } from "./recorder-parts.js";
import type { ModelCallRecord, ToolCallRecord } from "./types.js";

/** A call's span start, with the end time it is ended at. */
export type CallSpanStart = StartSpanOptions & { startTime: number; endTime: number };

/** The span of a model call ending at `end`; cost as given (the caller prices it). */
export function modelCallStart(call: ModelCallRecord, end: number): CallSpanStart {
  return {
    kind: "model_call",
    name: call.name ?? modelCallName(call),
    parentId: call.parentId,
    stepId: call.stepId,
    agent: call.agent,
    startTime: call.startTime ?? end,
    endTime: end,
    attributes: {
      model: call.model, inputTokens: call.inputTokens, outputTokens: call.outputTokens, costUsd: call.costUsd,
      extra: call.turn === undefined ? call.extra : { ...call.extra, turn: call.turn },
    },
  };
}

/** The span of a tool call ending at `end` (arguments redacted by `redact` when recorded). */
export function toolCallStart(call: ToolCallRecord, end: number): CallSpanStart {
  const { tool, toolCallId, args, attempt, idempotencyKey, externalOperationId, resultSize, extra } = call;
  return {
    kind: "tool_call",
    name: call.name ?? `execute_tool ${tool}`,
    parentId: call.parentId,
    stepId: call.stepId,
    agent: call.agent,
    startTime: call.startTime ?? end,
    endTime: end,
    redact: call.redact,
    attributes: { tool, toolCallId, args, attempt: attempt ?? 1, idempotencyKey, externalOperationId, resultSize, extra },
  };
}

/** The tree label of a model call: the seed's `model_turn N` when the turn is known, else `chat {model}`. */
function modelCallName(call: ModelCallRecord): string {
  const turn = call.turn ?? call.extra?.turn;
  return typeof turn === "number" ? `model_turn ${turn}` : `chat ${call.model}`;
}
