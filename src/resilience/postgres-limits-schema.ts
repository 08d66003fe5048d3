/**
 * The shared limit state on PostgreSQL (module "limits"): one row per token bucket, one row per held concurrency
 * slot (numbered 0 … limit-1, so "is one free" is a primary-key conflict, not a count two processes could both
 * pass), one row per circuit breaker. Times are the server's (`clock_timestamp()`), never a process's.
 * @module
 */
import type { PgModuleSchema } from "../db/postgres/index.js";

const V1 = `
CREATE TABLE limit_buckets (
  key TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  refilled_at TIMESTAMPTZ NOT NULL,
  granted BOOLEAN NOT NULL
);
CREATE TABLE limit_slots (
  key TEXT NOT NULL,
  n INTEGER NOT NULL,
  holder TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (key, n)
);
CREATE TABLE limit_breakers (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  opened_at TIMESTAMPTZ,
  probe_token TEXT,
  probe_until TIMESTAMPTZ
);
`;

/** The limits module's PostgreSQL schema; migration i brings version i to i + 1 (literal SQL, never edited). */
export const PG_LIMITS_SCHEMA: PgModuleSchema = {
  module: "limits",
  tables: ["limit_buckets", "limit_slots", "limit_breakers"],
  migrations: [V1],
};
