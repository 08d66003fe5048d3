/**
 * Graph values as JSON: LangChain messages as plain dicts (not the `lc` constructor form), class instances as their
 * own fields. Shared by the HTTP API and by a worker storing a streamed run's chunks for any API server to send.
 * @module
 */
import { isBaseMessage, type BaseMessage } from "@langchain/core/messages";

/** A message as the API and Studio show it. */
function messageToDict(message: BaseMessage): Record<string, unknown> {
  const m = message as BaseMessage & { tool_calls?: unknown; tool_call_id?: unknown; invalid_tool_calls?: unknown; usage_metadata?: unknown };
  const dict: Record<string, unknown> = {
    type: message.getType(),
    content: message.content,
    id: message.id ?? null,
    name: message.name ?? null,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  };
  for (const key of ["tool_calls", "tool_call_id", "invalid_tool_calls", "usage_metadata"] as const) {
    if (m[key] !== undefined) dict[key] = m[key];
  }
  return dict;
}

/** A JSON-safe copy of graph values: messages become dicts, class instances their own fields. */
export function toWire(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? value.toString() : value;
  if (depth > 64) return null;
  if (isBaseMessage(value)) return messageToDict(value);
  if (Array.isArray(value)) return value.map((v) => toWire(v, depth + 1));
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "function" && v !== undefined) out[key] = toWire(v, depth + 1);
  }
  return out;
}

