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

// V4 (claims without a schema-wide lock, fair shares): the claim reads runs in claim order from an index of the
// claimable runs alone, so its cost does not grow with the runs leased; a per-user cap counts the user's held
// leases from an index of held runs alone. tenant_shares holds each tenant's (a run's user's) virtual time for
// stride scheduling: a claim under fair shares takes the tenant with the lowest pass and advances it by 1 / weight.
// A tenant's row is made when its first run is queued, and a tenant coming back from idle joins at the lowest pass
// of the tenants with work (not its old, lower one, which would let it take every claim until it caught up).
const V4 = `
CREATE INDEX runs_claimable ON runs (priority DESC, created_at, run_id)
  WHERE status IN ('QUEUED', 'RETRYING') AND lease_owner IS NULL;
CREATE INDEX runs_claimable_by_user ON runs (user_id, priority DESC, created_at, run_id)
  WHERE status IN ('QUEUED', 'RETRYING') AND lease_owner IS NULL;
CREATE INDEX runs_held_by_user ON runs (user_id)
  WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL;
CREATE TABLE tenant_shares (tenant TEXT PRIMARY KEY, pass DOUBLE PRECISION NOT NULL);
INSERT INTO tenant_shares (tenant, pass)
  SELECT DISTINCT user_id, 0 FROM runs;
CREATE FUNCTION runs_tenant_share() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    -- Only a tenant's first run, or its first claimable one after idling, moves its row: most inserts read one row.
    IF EXISTS (SELECT 1 FROM tenant_shares WHERE tenant = NEW.user_id) AND (NEW.status NOT IN ('QUEUED', 'RETRYING')
        OR EXISTS (SELECT 1 FROM runs r WHERE r.user_id = NEW.user_id AND r.status IN ('QUEUED', 'RETRYING')
          AND r.lease_owner IS NULL AND r.run_id <> NEW.run_id)) THEN
      RETURN NULL;
    END IF;
    INSERT INTO tenant_shares AS s (tenant, pass)
      VALUES (NEW.user_id, COALESCE((SELECT min(t.pass) FROM tenant_shares t WHERE t.tenant <> NEW.user_id
        AND EXISTS (SELECT 1 FROM runs r WHERE r.user_id = t.tenant AND r.status IN ('QUEUED', 'RETRYING') AND r.lease_owner IS NULL)), 0))
      ON CONFLICT (tenant) DO UPDATE SET pass = EXCLUDED.pass WHERE s.pass < EXCLUDED.pass;
    RETURN NULL;
  END $$;
CREATE TRIGGER runs_tenant_share AFTER INSERT ON runs FOR EACH ROW EXECUTE FUNCTION runs_tenant_share();
`;

// V5: no row every commit must lock. V2's single counter row serialized every transaction that touched runs (a
// heartbeat included) at COMMIT; instead each run row records the transaction that last changed it (`changed_xid`,
// set by a BEFORE trigger only for the columns readers watch: a heartbeat's lease_expires_at fires nothing), and a
// reader asks "any row written by a transaction my last snapshot did not see?" (postgres-run-store.ts changeStamp).
// run_fence() is the lease holder's fence as ONE statement that raises when the lease is gone, so a fenced write
// sends it with the write itself (BEGIN; fence; write; COMMIT in one round trip): SQLSTATE AL409 carries the run's
// "status token owner?" for LeaseLostError's reason, AL404 an unknown run. With usage it adds it (the row lock then
// holds a takeover off until commit); without, FOR SHARE does.
// The notify trigger wakes only who has work to do: a run queued (or retrying) on the "queued" channel, which only
// workers with room listen to; every status change but a claim on its run's bucket channel ("run" and the first two
// hex digits of md5(run_id)), which its holder (a cancel) and its waiters listen to; and on the "runs" channel, for
// the viewer feed and draining workers. A claim (to RUNNING) notifies nobody: each NOTIFY takes the database's
// notify lock at commit, and no one waits for a run to start.
const V5 = `
DROP TRIGGER runs_changed ON runs;
DROP FUNCTION runs_count_change();
DROP TABLE run_changes;
ALTER TABLE runs ADD COLUMN changed_xid xid8;
UPDATE runs SET changed_xid = pg_current_xact_id();
CREATE INDEX runs_by_changed_xid ON runs (changed_xid);
CREATE FUNCTION runs_stamp_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN NEW.changed_xid := pg_current_xact_id(); RETURN NEW; END $$;
CREATE TRIGGER runs_stamp_change BEFORE INSERT OR UPDATE OF status, fencing_token, lease_owner, updated_at, steps ON runs
  FOR EACH ROW EXECUTE FUNCTION runs_stamp_change();
CREATE FUNCTION run_fence(p_run TEXT, p_token BIGINT, p_steps BIGINT, p_calls BIGINT, p_tokens BIGINT, p_cost FLOAT8, p_now BIGINT)
RETURNS void LANGUAGE plpgsql AS $$
  DECLARE r RECORD;
  BEGIN
    IF p_now IS NOT NULL THEN
      UPDATE runs SET steps = steps + p_steps, model_calls = model_calls + p_calls, tokens = tokens + p_tokens,
        cost_usd = cost_usd + p_cost, updated_at = p_now
        WHERE run_id = p_run AND fencing_token = p_token AND status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL;
      IF FOUND THEN RETURN; END IF;
    END IF;
    SELECT status, fencing_token, lease_owner IS NOT NULL AS held INTO r FROM runs WHERE run_id = p_run FOR SHARE;
    IF NOT FOUND THEN RAISE EXCEPTION USING ERRCODE = 'AL404', MESSAGE = 'agentrt: unknown run ' || p_run; END IF;
    IF r.fencing_token = p_token AND (r.status = 'RUNNING' OR (r.status = 'RETRYING' AND r.held)) THEN RETURN; END IF;
    RAISE EXCEPTION USING ERRCODE = 'AL409', MESSAGE = 'agentrt: lease lost on run ' || p_run,
      DETAIL = r.status || ' ' || r.fencing_token || ' ' || r.held;
  END $$;
CREATE OR REPLACE FUNCTION run_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE available BIGINT; payload TEXT; tail TEXT := '_' || left(md5(TG_TABLE_SCHEMA), 16);
  BEGIN
    IF NEW.to_status = 'RUNNING' THEN RETURN NULL; END IF;
    IF NEW.to_status IN ('QUEUED', 'RETRYING') THEN
      SELECT available_at INTO available FROM runs WHERE run_id = NEW.run_id;
    END IF;
    payload := NEW.run_id || ' ' || NEW.to_status || ' ' || COALESCE(available::text, '');
    IF NEW.to_status IN ('QUEUED', 'RETRYING') THEN PERFORM pg_notify('agentrt_queued' || tail, payload); END IF;
    PERFORM pg_notify('agentrt_run' || left(md5(NEW.run_id), 2) || tail, payload);
    PERFORM pg_notify('agentrt_runs' || tail, payload);
    RETURN NULL;
  END $$;
`;

// V6: idempotency keys of run creates, as SQLite's V6 (schema.ts).
const V6 = `
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
  // run_changes: V2 creates it (V5 drops it), so a foreign table by that name still stops a first migration.
  tables: ["runs", "run_events", "run_changes", "tenant_shares", "run_idempotency_keys"],
  migrations: [V1, V2, V3, V4, V5, V6],
};
