/**
 * The trace module's PostgreSQL statements. A batch of spans is one statement: the rows travel as one array per
 * column and `unnest` turns them back into rows, so a flush is one round trip whatever its size.
 * @module
 */
import pg from "pg";
import { MUTABLE_COLUMNS, SPAN_COLUMNS, emptyRow, type SpanRow } from "./rows.js";

const PG_TYPES: Record<(typeof SPAN_COLUMNS)[number], string> = {
  span_id: "text", run_id: "text", parent_id: "text", step_id: "text", kind: "text", name: "text", status: "text",
  start_ms: "float8", end_ms: "float8", graph: "text", agent: "text", model: "text", input_tokens: "int8",
  output_tokens: "int8", cost_usd: "float8", tool: "text", tool_call_id: "text", args_json: "text", attempt: "int8",
  idempotency_key: "text", external_op_id: "text", result_size: "int8", error: "text", extra_json: "text",
};

const COLUMN_LIST = SPAN_COLUMNS.join(", ");
const UPDATE_ALL = MUTABLE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(", ");

/** Upsert of a whole batch: `$1..$24` are the column arrays of {@link columnArrays}. */
export const PG_UPSERT_BATCH_SQL = `INSERT INTO spans (${COLUMN_LIST})
  SELECT * FROM unnest(${SPAN_COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}[]`).join(", ")})
  ON CONFLICT (span_id) DO UPDATE SET ${UPDATE_ALL}`;

// The run's stored state a recorder needs, after `ins` (the root, when this call created it): the run's root and
// running spans, and how many state changes it has; one row with NULL span columns when it has none.
const runState = (runId: string) => `c AS (SELECT count(*) AS n FROM spans WHERE run_id = ${runId} AND kind = 'state_change')
  SELECT c.n AS state_changes, r.* FROM c LEFT JOIN (
    SELECT * FROM ins UNION ALL
    SELECT * FROM spans WHERE run_id = ${runId} AND (status = 'running' OR (kind = 'invoke_agent' AND parent_id IS NULL))
  ) r ON true ORDER BY r.start_ms, r.seq`;

/**
 * Creates the run's root unless one exists (the unique root index keeps the first) and reads the run's state in
 * the same statement: `$1..$24` the new root's columns (`$2` its run id).
 */
export const PG_ATTACH_SQL = `WITH ins AS (
    INSERT INTO spans (${COLUMN_LIST}) VALUES (${SPAN_COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}`).join(", ")})
    ON CONFLICT DO NOTHING RETURNING *
  ), ${runState("$2")}`;

/** {@link PG_ATTACH_SQL} without the insert, for a recorder already attached: `$1` the run id. */
export const PG_RUN_STATE_SQL = `WITH ins AS (SELECT * FROM spans WHERE false), ${runState("$1")}`;

/** A batch as one array per column, in column order. */
export function columnArrays(rows: readonly SpanRow[]): unknown[][] {
  return SPAN_COLUMNS.map((c) => rows.map((row) => row[c]));
}

/** A row's values in column order. */
export function columnValues(row: SpanRow): unknown[] {
  return SPAN_COLUMNS.map((c) => row[c]);
}

/** A span row read back, as the recorder holds rows (only the span columns). */
export function toSpanRow(raw: Record<string, unknown>): SpanRow {
  const row = emptyRow({ span_id: "", run_id: "", kind: "", name: "", start_ms: 0 });
  const target = row as unknown as Record<string, unknown>;
  for (const c of SPAN_COLUMNS) target[c] = raw[c];
  return row;
}

const INT8 = 20;
const NUMERIC = 1700;

/** Type parsing for trace queries: BIGINT counts and sums as numbers (far below 2^53), not strings. */
export const NUMBER_TYPES = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === INT8 || oid === NUMERIC) return Number;
    return pg.types.getTypeParser(oid, (format ?? "text") as "text") as (value: string) => unknown;
  },
};

/** A query config with {@link NUMBER_TYPES}. */
export function numeric(text: string, values: unknown[]): pg.QueryConfig {
  return { text, values, types: NUMBER_TYPES };
}
