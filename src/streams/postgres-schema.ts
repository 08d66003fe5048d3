/**
 * The stream module's tables on PostgreSQL (module "streams"): `run_streams`, one row per watched run (the modes
 * asked for, the last seq handed out, when its last execution rested), and `run_stream_chunks`, the chunks
 * themselves, keyed by (run_id, seq).
 * @module
 */
import type { PgModuleSchema } from "../db/postgres/index.js";

const V1 = `
CREATE TABLE run_streams (
  run_id TEXT PRIMARY KEY,
  modes JSONB NOT NULL,
  last_seq BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL,
  rested_at BIGINT
);
CREATE INDEX run_streams_rested ON run_streams (rested_at) WHERE rested_at IS NOT NULL;
CREATE TABLE run_stream_chunks (
  run_id TEXT NOT NULL,
  seq BIGINT NOT NULL,
  mode TEXT NOT NULL,
  payload JSONB NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;

/** The stream module's PostgreSQL schema; migration i brings version i to i + 1 (literal SQL, never edited). */
export const PG_STREAMS_SCHEMA: PgModuleSchema = {
  module: "streams",
  tables: ["run_streams", "run_stream_chunks"],
  migrations: [V1],
};
