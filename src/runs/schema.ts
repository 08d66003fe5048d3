/**
 * Tables of the "runs" module: `runs` (one row per run, the lease and the
 * budget counters) and `run_events` (append-only log of status changes).
 * @module
 */
import type { ModuleSchema } from "../db/index.js";

// Each migration is frozen text: a file migrated years from now must get exactly the tables this version
// made, so nothing here is built from live constants (the CHECK lists the statuses as they were at v1; a
// status added later needs a migration of its own). test/db/frozen-migrations.test.ts holds them to the
// tables the historical fixtures were written with.
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
  deadline_at INTEGER,
  available_at INTEGER NOT NULL,
  steps INTEGER NOT NULL DEFAULT 0,
  model_calls INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  budget_json TEXT NOT NULL DEFAULT '{}',
  lease_owner TEXT,
  lease_expires_at INTEGER,
  fencing_token INTEGER NOT NULL DEFAULT 0,
  error_code TEXT,
  error_message TEXT,
  input_json TEXT,
  result_json TEXT,
  pending_json TEXT,
  resume_json TEXT,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX runs_by_claim_order ON runs (status, priority DESC, created_at, run_id);
CREATE INDEX runs_by_thread ON runs (thread_id);
CREATE INDEX runs_by_user_status ON runs (user_id, status);
CREATE INDEX runs_by_open_deadline ON runs (deadline_at)
  WHERE deadline_at IS NOT NULL AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED');
CREATE TABLE run_events (
  event_id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  from_status TEXT,
  to_status TEXT NOT NULL,
  at INTEGER NOT NULL,
  actor TEXT,
  fencing_token INTEGER,
  error_code TEXT,
  reason TEXT
);
CREATE INDEX run_events_by_run ON run_events (run_id, event_id);
CREATE TRIGGER run_events_no_update BEFORE UPDATE ON run_events
  BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;
CREATE TRIGGER run_events_no_delete BEFORE DELETE ON run_events
  BEGIN SELECT RAISE(ABORT, 'run_events is append-only'); END;
`;

// V2: approval and input waits have a time-to-live. The TTL is fixed at submit;
// the deadline is set each time the run starts waiting and cleared when it leaves.
const V2 = `
ALTER TABLE runs ADD COLUMN wait_ttl_ms INTEGER;
ALTER TABLE runs ADD COLUMN wait_expires_at INTEGER;
CREATE INDEX runs_by_open_wait ON runs (wait_expires_at)
  WHERE wait_expires_at IS NOT NULL AND status IN ('WAITING_INPUT', 'WAITING_APPROVAL');
`;

// V3: what the graph is invoked with besides the run's own ids — `configurable` keys (an assistant's
// configuration, a model name) and LangGraph's recursion limit — as given at submit.
const V3 = `
ALTER TABLE runs ADD COLUMN config_json TEXT;
`;

// V4: no table change. `budget_json`, `config_json`, `pending_json` and `resume_json` are written as
// versioned documents (`{"$v": 1, …}`, see stored-documents.ts); the version bump makes an older agentrt
// refuse the file (DB_SCHEMA_TOO_NEW) instead of reading `{"$v":1,"value":…}` as a pending action or decision.
const V4 = `
-- runs v4: stored JSON documents carry "$v"
`;

// V5 (fair shares): tenant_shares holds each tenant's (a run's user's) virtual time for stride scheduling; a claim
// under fair shares takes the tenant with the lowest pass and advances it by 1 / weight. A tenant's row is made when
// its first run is queued; one coming back from idle joins at the lowest pass of the tenants with work. The index
// finds a tenant's best claimable run.
const V5 = `
CREATE INDEX runs_claimable_by_user ON runs (user_id, priority DESC, created_at, run_id)
  WHERE status IN ('QUEUED', 'RETRYING') AND lease_owner IS NULL;
CREATE TABLE tenant_shares (tenant TEXT PRIMARY KEY, pass REAL NOT NULL);
INSERT INTO tenant_shares (tenant, pass)
  SELECT DISTINCT user_id, 0 FROM runs;
CREATE TRIGGER runs_tenant_share AFTER INSERT ON runs
  WHEN NOT EXISTS (SELECT 1 FROM tenant_shares WHERE tenant = NEW.user_id) OR (NEW.status IN ('QUEUED', 'RETRYING')
    AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.user_id = NEW.user_id AND r.status IN ('QUEUED', 'RETRYING')
      AND r.lease_owner IS NULL AND r.run_id <> NEW.run_id))
  BEGIN
    INSERT INTO tenant_shares (tenant, pass)
      VALUES (NEW.user_id, COALESCE((SELECT min(t.pass) FROM tenant_shares t WHERE t.tenant <> NEW.user_id
        AND EXISTS (SELECT 1 FROM runs r WHERE r.user_id = t.tenant AND r.status IN ('QUEUED', 'RETRYING') AND r.lease_owner IS NULL)), 0))
      ON CONFLICT (tenant) DO UPDATE SET pass = excluded.pass WHERE pass < excluded.pass;
  END;
`;

// V6: idempotency keys of run creates (idempotency.ts): a caller's key names its first run for a day, unique per
// user, written in the create's transaction; pruned by keyed creates once past their time.
const V6 = `
CREATE TABLE run_idempotency_keys (
  user_id TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  run_id TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, idem_key)
);
CREATE INDEX run_idempotency_keys_by_age ON run_idempotency_keys (created_at);
`;

/** The runs module's schema; migration i brings version i to i + 1. */
export const RUNS_SCHEMA: ModuleSchema = {
  module: "runs",
  tables: ["runs", "run_events", "tenant_shares", "run_idempotency_keys"],
  migrations: [V1, V2, V3, V4, V5, V6],
};
