import type { PgModuleSchema } from "../db/postgres/index.js";

/**
 * The trace module's tables on PostgreSQL: the SQLite `spans` table, with `seq` standing in for SQLite's rowid
 * (insertion order breaks ties of `start_ms` when spans are read back). Times are fractional epoch ms, so DOUBLE
 * PRECISION; JSON (arguments, which may be a truncated marker, and extra attributes) is stored as given, in TEXT.
 */
export const TRACE_PG_SCHEMA: PgModuleSchema = {
  module: "trace",
  tables: ["spans"],
  migrations: [
    `CREATE TABLE spans (
       seq BIGINT GENERATED ALWAYS AS IDENTITY,
       span_id TEXT PRIMARY KEY,
       run_id TEXT NOT NULL,
       parent_id TEXT,
       step_id TEXT,
       kind TEXT NOT NULL,
       name TEXT NOT NULL,
       status TEXT NOT NULL,
       start_ms DOUBLE PRECISION NOT NULL,
       end_ms DOUBLE PRECISION,
       graph TEXT,
       agent TEXT,
       model TEXT,
       input_tokens BIGINT,
       output_tokens BIGINT,
       cost_usd DOUBLE PRECISION,
       tool TEXT,
       tool_call_id TEXT,
       args_json TEXT,
       attempt BIGINT,
       idempotency_key TEXT,
       external_op_id TEXT,
       result_size BIGINT,
       error TEXT,
       extra_json TEXT
     );
     CREATE INDEX spans_by_run ON spans (run_id, start_ms, seq);
     CREATE UNIQUE INDEX spans_one_root ON spans (run_id) WHERE kind = 'invoke_agent' AND parent_id IS NULL;`,
  ],
};
