/**
 * The statements of the PostgreSQL run store that read and write `runs` rows: every query returns BIGINT as a JS
 * number (epoch ms, counters, tokens), so rows parse with the same `rowToRun` / `rowToEvent` as SQLite's, and every
 * status change is ONE statement (guarded UPDATE … RETURNING plus its events' INSERT, as a CTE).
 * @module
 */
import pg from "pg";
import type { PgQueryable } from "../db/postgres/index.js";
import { UserInputError } from "../errors.js";
import { UnknownRunError } from "./errors.js";
import { isTerminal, isWaiting, type RunStatus } from "./lifecycle.js";
import { rowToRun, toJson, type RunRecord, type RunUsage } from "./run-record.js";
import { encodeOpaque } from "./stored-documents.js";
import type { NewRunValues } from "./new-run.js";
import type { ClaimFields, TransitionOptions } from "./transition-write.js";

const INT8_OID = 20;

// Per query, not pg's global parser table: other modules of the process keep the driver's defaults.
const types = {
  getTypeParser(oid: number, format?: string): (value: string) => unknown {
    if (oid === INT8_OID) return Number;
    return pg.types.getTypeParser(oid, format as "text") as (value: string) => unknown;
  },
};

/** Runs one statement with BIGINT read as numbers; returns its rows. */
export async function pgRows(on: PgQueryable, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const result = await on.query({ text, values, types } as pg.QueryConfig);
  return result.rows;
}

/** The run, or undefined; `lock` locks its row until the transaction ends. */
export async function findRun(on: PgQueryable, runId: string, lock = false): Promise<RunRecord | undefined> {
  const rows = await pgRows(on, `SELECT * FROM runs WHERE run_id = $1${lock ? " FOR UPDATE" : ""}`, [runId]);
  return rows[0] === undefined ? undefined : rowToRun(rows[0]);
}

/** The run, or UnknownRunError. */
export async function getRun(on: PgQueryable, runId: string, lock = false): Promise<RunRecord> {
  const run = await findRun(on, runId, lock);
  if (run === undefined) throw new UnknownRunError(runId);
  return run;
}

/** One event of a status-change write. */
export interface PgEvent {
  from: RunStatus | null;
  to: RunStatus;
  actor: string | null;
  fencingToken: number | null;
  errorCode: string | null;
  reason: string | null;
}

/** A status change as one guarded write: the row must still have `from` and `token` (and a lease, with `held`). */
export interface PgTransitionWrite {
  runId: string;
  from: RunStatus;
  token: number;
  /** Also require a held lease (a fenced write: RUNNING, or RETRYING backing off under the lease). */
  held: boolean;
  to: RunStatus;
  options: TransitionOptions;
  claim?: ClaimFields & { countsAsAttempt: boolean };
  now: number;
  /** Usage the holder deferred, added in the same write. */
  usage?: Partial<RunUsage>;
  /** The events appended, in order (a backoff's end, then the change). */
  events: PgEvent[];
}

// The same assignments as SQLite's writeTransition, plus the usage delta; events come from the UPDATE's RETURNING,
// so they are written only when the guarded UPDATE matched.
const TRANSITION = `
WITH upd AS (
  UPDATE runs SET status = $2::text, updated_at = $3::bigint,
    lease_owner = $4::text, lease_expires_at = $5::bigint,
    fencing_token = fencing_token + $6::int, attempts = GREATEST(0, attempts + $7::int),
    started_at = CASE WHEN $8::boolean THEN COALESCE(started_at, $3::bigint) ELSE started_at END,
    finished_at = $9::bigint,
    available_at = COALESCE($10::bigint, available_at),
    error_code = CASE WHEN $2::text = 'SUCCEEDED' THEN NULL ELSE COALESCE($11::text, error_code) END,
    error_message = CASE WHEN $2::text = 'SUCCEEDED' THEN NULL ELSE COALESCE($12::text, error_message) END,
    result_json = COALESCE($13::text, result_json),
    pending_json = $14::text,
    wait_expires_at = CASE WHEN $15::boolean THEN $3::bigint + wait_ttl_ms ELSE NULL END,
    resume_json = CASE WHEN $16::boolean THEN NULL ELSE COALESCE($17::text, resume_json) END,
    steps = steps + $18::bigint, model_calls = model_calls + $19::bigint, tokens = tokens + $20::bigint,
    cost_usd = cost_usd + $21::float8
  WHERE run_id = $1::text AND status = $22::text AND fencing_token = $23::bigint AND (NOT $24::boolean OR lease_owner IS NOT NULL)
  RETURNING *),
ev AS (
  INSERT INTO run_events (run_id, from_status, to_status, at, actor, fencing_token, error_code, reason)
  SELECT upd.run_id, e.from_status, e.to_status, $3::bigint, e.actor, e.fencing_token, e.error_code, e.reason
  FROM upd, unnest($25::text[], $26::text[], $27::text[], $28::bigint[], $29::text[], $30::text[])
    WITH ORDINALITY AS e(from_status, to_status, actor, fencing_token, error_code, reason, ord)
  ORDER BY e.ord)
SELECT * FROM upd`;

/** Writes a validated status change and its events in one statement; undefined when the guard no longer holds. */
export async function writeTransition(on: PgQueryable, write: PgTransitionWrite): Promise<RunRecord | undefined> {
  const { to, options, claim, now, usage = {} } = write;
  const leaving = isWaiting(to) || isTerminal(to);
  const attemptDelta = claim !== undefined ? (claim.countsAsAttempt ? 1 : 0) : options.refundAttempt === true ? -1 : 0;
  const rows = await pgRows(on, TRANSITION, [
    write.runId, to, now,
    claim?.owner ?? null, claim?.expiresAt ?? null,
    claim === undefined ? 0 : 1, attemptDelta,
    claim !== undefined,
    isTerminal(to) ? now : null,
    options.availableAt ?? (to === "RETRYING" ? now : null),
    options.errorCode ?? null,
    options.errorMessage ?? null,
    toJson(options.result),
    isWaiting(to) ? encodeOpaque(options.pending ?? null) : null,
    isWaiting(to),
    leaving, encodeOpaque(options.resume),
    usage.steps ?? 0, usage.modelCalls ?? 0, usage.tokens ?? 0, usage.costUsd ?? 0,
    write.from, write.token, write.held,
    write.events.map((e) => e.from), write.events.map((e) => e.to), write.events.map((e) => e.actor),
    write.events.map((e) => e.fencingToken), write.events.map((e) => e.errorCode), write.events.map((e) => e.reason),
  ]);
  return rows[0] === undefined ? undefined : rowToRun(rows[0]);
}

/** The event of a plain change `current.status → to` (SQLite's writeTransition records the same). */
export function changeEvent(from: RunStatus, to: RunStatus, token: number, options: TransitionOptions, claim?: ClaimFields): PgEvent {
  return {
    from, to,
    actor: claim?.owner ?? options.actor ?? null,
    fencingToken: claim === undefined ? token : token + 1,
    errorCode: options.errorCode ?? null,
    reason: options.reason ?? null,
  };
}

// Insert and first event in one statement; a taken id inserts nothing (ON CONFLICT), which the caller reports.
const CREATE = `
WITH ins AS (
  INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, priority, max_attempts, deadline_at,
    available_at, budget_json, input_json, metadata_json, created_at, updated_at, wait_ttl_ms, config_json)
  VALUES ($1, $2, $3, $4, 'QUEUED', $5, $6, $7, $8, $9, $10, $11, $12, $12, $13, $14)
  ON CONFLICT (run_id) DO NOTHING
  RETURNING *),
ev AS (INSERT INTO run_events (run_id, from_status, to_status, at) SELECT run_id, NULL, 'QUEUED', $12 FROM ins)
SELECT * FROM ins`;

/** Inserts a QUEUED run and its first event in one statement; BAD_INPUT when the id is taken. */
export async function insertRun(on: PgQueryable, values: NewRunValues): Promise<RunRecord> {
  const rows = await pgRows(on, CREATE, values);
  if (rows[0] === undefined) throw new UserInputError("BAD_INPUT", `a run with id ${values[0]} already exists`, { details: { runId: values[0] } });
  return rowToRun(rows[0]);
}
