/**
 * The `tool_ledger` table on PostgreSQL (module "ledger"), the same columns as on SQLite plus `seq` (the order
 * calls were begun, SQLite's rowid) and `begun_as` (what the last begin decided, so one upsert can answer it).
 * @module
 */
import type { PgModuleSchema } from "../db/postgres/index.js";

const V1 = `
CREATE TABLE tool_ledger (
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  idempotency_key TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  action_version INTEGER NOT NULL,
  tool TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  idempotent BOOLEAN NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  begun_as TEXT NOT NULL CHECK (begun_as IN ('new', 'reissue')),
  attempts INTEGER NOT NULL,
  result_json TEXT,
  external_operation_id TEXT,
  error_json TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  completed_at BIGINT,
  UNIQUE (run_id, tool_call_id, action_version)
);
CREATE INDEX tool_ledger_by_run ON tool_ledger (run_id, seq);
`;

/** The ledger module's PostgreSQL schema; migration i brings version i to i + 1 (literal SQL, never edited). */
export const PG_LEDGER_SCHEMA: PgModuleSchema = {
  module: "ledger",
  tables: ["tool_ledger"],
  migrations: [V1],
};
