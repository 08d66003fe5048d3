/**
 * Tables of the simulated world in a PostgreSQL schema, owned by the "sim" module as in a SQLite file. State
 * values and results stay JSON text (TEXT, not JSONB): a snapshot shows them as written, key order included.
 * @module
 */
import type { PgModuleSchema } from "../db/postgres/index.js";

/** PostgreSQL schema of the simulated world's `sim_*` tables. */
export const PG_SIM_SCHEMA: PgModuleSchema = Object.freeze({
  module: "sim",
  tables: Object.freeze(["sim_calls", "sim_operations", "sim_state", "sim_systems", "sim_sequences"]),
  migrations: Object.freeze([
    `CREATE TABLE sim_calls (
       tool TEXT PRIMARY KEY,
       attempts INTEGER NOT NULL DEFAULT 0,
       failures INTEGER NOT NULL DEFAULT 0,
       performed INTEGER NOT NULL DEFAULT 0
     );
     CREATE TABLE sim_operations (
       tool TEXT NOT NULL,
       idempotency_key TEXT NOT NULL,
       system TEXT NOT NULL,
       operation_id TEXT NOT NULL UNIQUE,
       result TEXT NOT NULL,
       created_at BIGINT NOT NULL,
       PRIMARY KEY (tool, idempotency_key)
     );
     CREATE TABLE sim_state (
       system TEXT NOT NULL,
       key TEXT NOT NULL,
       value TEXT NOT NULL,
       PRIMARY KEY (system, key)
     );
     CREATE TABLE sim_systems (system TEXT PRIMARY KEY, seeded_at BIGINT NOT NULL);
     CREATE TABLE sim_sequences (system TEXT PRIMARY KEY, value INTEGER NOT NULL);`,
    // V2: a tool's counts over several rows (slot 0 the attempts and failures faults are decided on, a slot per
    // connection for calls performed), so concurrent calls of one tool do not queue on one row until commit.
    `ALTER TABLE sim_calls ADD COLUMN slot INTEGER NOT NULL DEFAULT 0;
     ALTER TABLE sim_calls DROP CONSTRAINT sim_calls_pkey;
     ALTER TABLE sim_calls ADD PRIMARY KEY (tool, slot);`,
  ]),
});
