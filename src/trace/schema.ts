import type { ModuleSchema } from "../db/index.js";

/**
 * The trace module's tables. One row per span; the root span of a run is
 * unique so a resumed run in another process re-attaches instead of forking.
 * Indexes are kept to the two lookups on the write path (by id, by run):
 * every index is paid on each span insert, and stats are an offline scan.
 */
export const TRACE_SCHEMA: ModuleSchema = {
  module: "trace",
  tables: ["spans"],
  migrations: [
    `CREATE TABLE spans (
       span_id TEXT PRIMARY KEY,
       run_id TEXT NOT NULL,
       parent_id TEXT,
       step_id TEXT,
       kind TEXT NOT NULL,
       name TEXT NOT NULL,
       status TEXT NOT NULL,
       start_ms REAL NOT NULL,
       end_ms REAL,
       graph TEXT,
       agent TEXT,
       model TEXT,
       input_tokens INTEGER,
       output_tokens INTEGER,
       cost_usd REAL,
       tool TEXT,
       tool_call_id TEXT,
       args_json TEXT,
       attempt INTEGER,
       idempotency_key TEXT,
       external_op_id TEXT,
       result_size INTEGER,
       error TEXT,
       extra_json TEXT
     );
     CREATE INDEX spans_by_run ON spans (run_id, start_ms);
     CREATE UNIQUE INDEX spans_one_root ON spans (run_id) WHERE kind = 'invoke_agent' AND parent_id IS NULL;`,
  ],
};
