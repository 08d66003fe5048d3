/**
 * The `spans` row shape and its conversion to {@link TraceSpan}. Rows read
 * back from disk are validated: another process or an older agentrt wrote them.
 * @module
 */
import { z } from "zod";
import { StorageError } from "../errors.js";
import { SPAN_KINDS, SPAN_STATUSES, type AttributeValue, type TraceSpan } from "./types.js";

/** One `spans` row, column for column; the recorder mutates it until flushed. */
export interface SpanRow {
  span_id: string;
  run_id: string;
  parent_id: string | null;
  step_id: string | null;
  kind: string;
  name: string;
  status: string;
  start_ms: number;
  end_ms: number | null;
  graph: string | null;
  agent: string | null;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  tool: string | null;
  tool_call_id: string | null;
  args_json: string | null;
  attempt: number | null;
  idempotency_key: string | null;
  external_op_id: string | null;
  result_size: number | null;
  error: string | null;
  extra_json: string | null;
}

/** The `spans` columns in table order (both backends). */
export const SPAN_COLUMNS = [
  "span_id", "run_id", "parent_id", "step_id", "kind", "name", "status", "start_ms", "end_ms", "graph", "agent",
  "model", "input_tokens", "output_tokens", "cost_usd", "tool", "tool_call_id", "args_json", "attempt",
  "idempotency_key", "external_op_id", "result_size", "error", "extra_json",
] as const satisfies readonly (keyof SpanRow)[];
const COLUMNS = SPAN_COLUMNS;

/** Columns an upsert overwrites: all but the span's identity and start. */
export const MUTABLE_COLUMNS = COLUMNS.filter((c) => c !== "span_id" && c !== "run_id" && c !== "kind" && c !== "start_ms");

const PLACEHOLDERS = COLUMNS.map(() => "?").join(", ");

/** Insert-or-update of a whole row: one prepared statement serves a span's start and its end. */
export const UPSERT_SQL = `INSERT INTO spans (${COLUMNS.join(", ")}) VALUES (${PLACEHOLDERS})
  ON CONFLICT(span_id) DO UPDATE SET ${MUTABLE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ")}`;

/** Plain insert that yields to an existing row: how two processes race to create a run's root. */
export const INSERT_IF_ABSENT_SQL = `INSERT OR IGNORE INTO spans (${COLUMNS.join(", ")}) VALUES (${PLACEHOLDERS})`;

/** A row's values in column order: positional binding is much cheaper than named on the hot path. */
export function rowValues(row: SpanRow): (string | number | null)[] {
  return COLUMNS.map((c) => row[c]);
}

/** True for a wait's row (`approval_wait`, `input_wait`). */
export function isWait(row: SpanRow): boolean {
  return row.kind === "approval_wait" || row.kind === "input_wait";
}

/** A fresh row with every optional column empty. */
export function emptyRow(init: Pick<SpanRow, "span_id" | "run_id" | "kind" | "name" | "start_ms">): SpanRow {
  // Written out in column order (no spread) so every row shares one hidden class.
  return {
    span_id: init.span_id, run_id: init.run_id, parent_id: null, step_id: null, kind: init.kind, name: init.name,
    status: "running", start_ms: init.start_ms, end_ms: null, graph: null, agent: null, model: null,
    input_tokens: null, output_tokens: null, cost_usd: null, tool: null, tool_call_id: null, args_json: null,
    attempt: null, idempotency_key: null, external_op_id: null, result_size: null, error: null, extra_json: null,
  };
}

const text = z.string().nullable();
const num = z.number().nullable();

const rowSchema = z.object({
  span_id: z.string(), run_id: z.string(), parent_id: text, step_id: text,
  kind: z.enum(SPAN_KINDS), name: z.string(), status: z.enum(SPAN_STATUSES),
  start_ms: z.number(), end_ms: num, graph: text, agent: text, model: text,
  input_tokens: num, output_tokens: num, cost_usd: num, tool: text, tool_call_id: text, args_json: text,
  attempt: num, idempotency_key: text, external_op_id: text, result_size: num, error: text, extra_json: text,
});

/** Validates a row read from disk and turns it into a {@link TraceSpan}. */
export function rowToSpan(raw: unknown): TraceSpan {
  const parsed = rowSchema.safeParse(raw);
  if (!parsed.success) {
    const id = (raw as { span_id?: unknown } | undefined)?.span_id;
    throw new StorageError("DB_CORRUPT", `spans: unreadable row ${String(id)} (${parsed.error.issues[0]?.message ?? "bad shape"})`);
  }
  const r = parsed.data;
  return {
    spanId: r.span_id, runId: r.run_id, parentId: r.parent_id, stepId: r.step_id, kind: r.kind, name: r.name,
    status: r.status, startMs: r.start_ms, endMs: r.end_ms, graph: r.graph, agent: r.agent, model: r.model,
    inputTokens: r.input_tokens, outputTokens: r.output_tokens, costUsd: r.cost_usd, tool: r.tool,
    toolCallId: r.tool_call_id, args: r.args_json === null ? null : parseJson(r.args_json), attempt: r.attempt,
    idempotencyKey: r.idempotency_key, externalOperationId: r.external_op_id, resultSize: r.result_size,
    error: r.error, extra: r.extra_json === null ? {} : (parseJson(r.extra_json) as Record<string, AttributeValue>),
  };
}

function parseJson(textValue: string): unknown {
  try {
    return JSON.parse(textValue);
  } catch {
    // Truncated argument JSON is stored as a marker string, not valid JSON.
    return textValue;
  }
}

/** The JSON form of a span for `agentrt trace --json`: snake_case, like the table and the envelope. */
export function spanToJson(span: TraceSpan): Record<string, unknown> {
  return {
    span_id: span.spanId, run_id: span.runId, parent_id: span.parentId, step_id: span.stepId, kind: span.kind,
    name: span.name, status: span.status, start_ms: span.startMs, end_ms: span.endMs,
    duration_ms: span.endMs === null ? null : span.endMs - span.startMs, graph: span.graph, agent: span.agent,
    model: span.model, input_tokens: span.inputTokens, output_tokens: span.outputTokens, cost_usd: span.costUsd,
    tool: span.tool, tool_call_id: span.toolCallId, args: span.args, attempt: span.attempt,
    idempotency_key: span.idempotencyKey, external_operation_id: span.externalOperationId,
    result_size: span.resultSize, error: span.error, attributes: span.extra,
  };
}
