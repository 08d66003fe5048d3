import { AgentrtError } from "../errors.js";
import { priceFor, type PricingTable } from "./pricing.js";
import { redactArgs } from "./redact.js";
import type { SpanRow } from "./rows.js";
import type { AttributeValue, SpanAttributes } from "./types.js";

/** How attributes are written onto a row. */
export interface ApplyOptions {
  pricing: PricingTable;
  /** Argument paths to redact before storing. */
  redact?: readonly string[] | undefined;
  /** Longest argument JSON kept; longer is cut and marked. */
  maxArgsChars: number;
}

/**
 * Copies the given attributes onto a span row (later calls win per field) and
 * prices model usage unless the caller gave a cost.
 */
export function applyAttributes(row: SpanRow, attrs: SpanAttributes, options: ApplyOptions): void {
  if (attrs.model !== undefined) row.model = attrs.model;
  if (attrs.inputTokens !== undefined) row.input_tokens = attrs.inputTokens;
  if (attrs.outputTokens !== undefined) row.output_tokens = attrs.outputTokens;
  if (attrs.tool !== undefined) row.tool = attrs.tool;
  if (attrs.toolCallId !== undefined) row.tool_call_id = attrs.toolCallId;
  if (attrs.attempt !== undefined) row.attempt = attrs.attempt;
  if (attrs.idempotencyKey !== undefined) row.idempotency_key = attrs.idempotencyKey;
  if (attrs.externalOperationId !== undefined) row.external_op_id = attrs.externalOperationId;
  if (attrs.resultSize !== undefined) row.result_size = attrs.resultSize;
  if (attrs.error !== undefined) row.error = attrs.error;
  if (attrs.args !== undefined) row.args_json = argsJson(attrs.args, options);
  if (attrs.extra !== undefined) row.extra_json = mergeExtra(row.extra_json, attrs.extra);
  if (attrs.costUsd !== undefined) row.cost_usd = attrs.costUsd;
  else if (row.model !== null && (attrs.inputTokens !== undefined || attrs.outputTokens !== undefined)) {
    const cost = priceFor(row.model, { inputTokens: row.input_tokens ?? 0, outputTokens: row.output_tokens ?? 0 }, options.pricing);
    row.cost_usd = cost.totalUsd;
  }
}

function argsJson(args: unknown, options: ApplyOptions): string {
  const redacted = options.redact === undefined || options.redact.length === 0 ? args : redactArgs(args, options.redact);
  let json: string;
  try {
    json = JSON.stringify(redacted) ?? "null";
  } catch {
    json = JSON.stringify("[unserialisable arguments]");
  }
  if (json.length <= options.maxArgsChars) return json;
  // Stored as a plain (non-JSON) marker string so readers see the cut.
  return `${json.slice(0, options.maxArgsChars)}…[truncated ${json.length - options.maxArgsChars} chars]`;
}

function mergeExtra(current: string | null, extra: Record<string, AttributeValue>): string {
  const base = current === null ? {} : (JSON.parse(current) as Record<string, AttributeValue>);
  return JSON.stringify({ ...base, ...extra });
}

/** One line describing an error, with its agentrt code when it has one. */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = (message.split("\n")[0] ?? message).slice(0, 500);
  return error instanceof AgentrtError ? `${line} [${error.code}]` : line;
}

/** The size of a tool result as stored: JSON length in characters. */
export function jsonSize(value: unknown): number {
  try {
    return (JSON.stringify(value) ?? "").length;
  } catch {
    return -1;
  }
}
