/**
 * Tables of the simulated world, owned by the "sim" module of the run database.
 * @module
 */
import type { ModuleSchema } from "../db/index.js";

/** Schema of the simulated world's `sim_*` tables. */
export const SIM_SCHEMA: ModuleSchema = {
  module: "sim",
  tables: ["sim_calls", "sim_operations", "sim_state", "sim_systems", "sim_sequences"],
  migrations: [
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
       created_at INTEGER NOT NULL,
       PRIMARY KEY (tool, idempotency_key)
     );
     CREATE TABLE sim_state (
       system TEXT NOT NULL,
       key TEXT NOT NULL,
       value TEXT NOT NULL,
       PRIMARY KEY (system, key)
     );
     CREATE TABLE sim_systems (system TEXT PRIMARY KEY, seeded_at INTEGER NOT NULL);
     CREATE TABLE sim_sequences (system TEXT PRIMARY KEY, value INTEGER NOT NULL);`,
  ],
};
