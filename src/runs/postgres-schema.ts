/**
 * The "runs" module's tables on PostgreSQL: the same columns as the SQLite schema at its newest version
 * (`schema.ts`), epoch ms as BIGINT, the caller's JSON and agentrt's versioned documents as TEXT (read back by the
 * same parsers), and `run_events.event_id` a BIGSERIAL so `eventsAfter` tails the log in commit order of ids.
 * @module
 */
import type { PgModuleSchema } from "../db/postgres/index.js";

// Frozen literal SQL, as the SQLite migrations: a later change is a new migration.
const V1 = `
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL,
  graph_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('QUEUED', 'RUNNING', 'WAITING_INPUT', 'WAITING_APPROVAL', 'RETRYING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED')),
  priority INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  deadline_at BIGINT,
  available_at BIGINT NOT NULL,
  steps BIGINT NOT NULL DEFAULT 0,
  model_calls BIGINT NOT NULL DEFAULT 0,
  tokens BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  budget_json TEXT NOT NULL DEFAULT '{}',
  lease_owner TEXT,
  lease_expires_at BIGINT,
  fencing_token BIGINT NOT NULL DEFAULT 0,
  error_code TEXT,
  error_message TEXT,
  input_json TEXT,
  result_json TEXT,
  pending_json TEXT,
  resume_json TEXT,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT,
  wait_ttl_ms BIGINT,
  wait_expires_at BIGINT,
  config_json TEXT
);
CREATE INDEX runs_by_claim_order ON runs (status, priority DESC, created_at, run_id);
CREATE INDEX runs_by_thread ON runs (thread_id, created_at, run_id);
CREATE INDEX runs_by_user_status ON runs (user_id, status);
CREATE INDEX runs_by_open_deadline ON runs (deadline_at)
  WHERE deadline_at IS NOT NULL AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED');
CREATE INDEX runs_by_open_wait ON runs (wait_expires_at)
  WHERE wait_expires_at IS NOT NULL AND status IN ('WAITING_INPUT', 'WAITING_APPROVAL');
CREATE INDEX runs_by_held_lease ON runs (lease_expires_at) WHERE lease_owner IS NOT NULL;
CREATE TABLE run_events (
  event_id BIGSERIAL PRIMARY KEY,
  run_id TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  at BIGINT NOT NULL,
  actor TEXT,
  fencing_token BIGINT,
  error_code TEXT,
  reason TEXT
);
CREATE INDEX run_events_by_run ON run_events (run_id, event_id);
CREATE FUNCTION run_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'run_events is append-only'; END $$;
CREATE TRIGGER run_events_no_update BEFORE UPDATE OR DELETE ON run_events
  FOR EACH ROW EXECUTE FUNCTION run_events_append_only();
`;

// V2: a change counter for RunStore.changeStamp/dataVersion. A deferred constraint trigger bumps the single row at
// COMMIT of any transaction that changed runs, so a reader seeing the new count also sees the change (a sequence or
// max(event_id) is taken before commit and can be overtaken), and the row lock is held only while committing, taken
// after every run row lock (no deadlock with writers that lock run rows first).
const V2 = `
CREATE TABLE run_changes (one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one), changes BIGINT NOT NULL);
INSERT INTO run_changes (one, changes) VALUES (true, 0);
CREATE FUNCTION runs_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN UPDATE run_changes SET changes = changes + 1; RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER runs_changed AFTER INSERT OR UPDATE OR DELETE ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION runs_count_change();
`;

// V3: word of every status change to other processes (RunSignals). Each run_events row NOTIFYs the schema's "runs"
// channel (notificationChannel(schema, "runs") in TypeScript) with "<run_id> <to_status> <available_at>", the run's
// available_at only for QUEUED and RETRYING so a worker can time its claim. PostgreSQL delivers it at COMMIT and
// drops it on rollback, so a listener that hears it sees the change. Every event is written by the same statement
// as its runs row (a CTE); the AFTER trigger fires at that statement's end and reads the row as updated.
const V3 = `
CREATE FUNCTION run_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE available BIGINT;
  BEGIN
    IF NEW.to_status IN ('QUEUED', 'RETRYING') THEN
      SELECT available_at INTO available FROM runs WHERE run_id = NEW.run_id;
    END IF;
    PERFORM pg_notify('agentrt_runs_' || left(md5(TG_TABLE_SCHEMA), 16),
      NEW.run_id || ' ' || NEW.to_status || ' ' || COALESCE(available::text, ''));
    RETURN NULL;
  END $$;
CREATE TRIGGER run_events_notify AFTER INSERT ON run_events FOR EACH ROW EXECUTE FUNCTION run_events_notify();
`;

// V4: idempotency keys of run creates, as SQLite's V5 (schema.ts).
const V4_IDEMPOTENCY = `
CREATE TABLE run_idempotency_keys (
  user_id TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  run_id TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (user_id, idem_key)
);
CREATE INDEX run_idempotency_keys_by_age ON run_idempotency_keys (created_at);
`;

/** The runs module's PostgreSQL schema; migration i brings version i to i + 1. */
export const RUNS_PG_SCHEMA: PgModuleSchema = {
  module: "runs",
  tables: ["runs", "run_events", "run_changes", "run_idempotency_keys"],
  migrations: [V1, V2, V3, V4_IDEMPOTENCY],
};
