/**
 * Claims and sweeps on PostgreSQL, each inside the caller's transaction: the same rules as SQLite's
 * (sqlite-claims.ts): priority then age, the global and per-user caps counted over held leases, only the oldest
 * unfinished run of a thread claimable, and the sweeps (overdue deadlines, overdue waits, expired leases) first.
 *
 * Concurrency: SQLite serialises whole claims with BEGIN IMMEDIATE. Here row locks alone cannot keep a cap: two
 * claimers each counting N - 1 held leases under READ COMMITTED would both claim. So every claim first takes a
 * transaction-scoped advisory lock per schema (`pg_advisory_xact_lock`), making claims serial with one another —
 * only claims ever add a held lease, so the count read after the lock stays true until commit. The rows themselves
 * are picked `FOR UPDATE SKIP LOCKED`, so a claim passes over (never waits for) a run that another transaction (a
 * cancel, a resume, a sweep) is writing.
 * @module
 */
import type { PgQueryable } from "../db/postgres/index.js";
import { SystemError } from "../errors.js";
import { isHeldRetrying } from "./backoff.js";
import { claimReason, EARLIER_ON_THREAD, userCap } from "./claim-rules.js";
import { UnknownRunError } from "./errors.js";
import { DEADLINE_EXPIRY, leaseRecovery } from "./lease.js";
import { assertTransition } from "./lifecycle.js";
import { changeEvent, pgRows, writeTransition } from "./postgres-run-rows.js";
import { rowToRun, type RunRecord } from "./run-record.js";
import type { ClaimCaps, ClaimRequest, ClaimRunRequest } from "./run-store.js";
import { countsAsAttempt, type TransitionOptions } from "./transition-write.js";
import { assertUnchanged } from "./unchanged.js";
import { waitExpiry } from "./wait-expiry.js";

const OVERDUE_DEADLINE = "deadline_at IS NOT NULL AND deadline_at <= $1 AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED')";
const OVERDUE_WAIT = "wait_expires_at IS NOT NULL AND wait_expires_at <= $1 AND status IN ('WAITING_INPUT', 'WAITING_APPROVAL')";
// A held RETRYING run (in-process backoff) whose holder stopped heartbeating has lost its lease too.
const EXPIRED_LEASE = "status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL AND lease_expires_at <= $1";

/** Runs a sweep moves at `now` ($1): deadlines, waits and leases, or waits alone. */
export function overdueWhere(only?: "waits"): string {
  return only === "waits" ? OVERDUE_WAIT : `(${OVERDUE_DEADLINE}) OR (${OVERDUE_WAIT}) OR (${EXPIRED_LEASE})`;
}

// Held leases per user: RUNNING, or RETRYING backing off in its holder's process.
const HELD = "held AS (SELECT user_id, count(*)::float8 AS n FROM runs WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL GROUP BY user_id)";

// $1 now, $2 maxRunning, $3 userLimits (JSON), $4 maxRunningPerUser; caps may be Infinity (float8 'Infinity').
const CANDIDATE = `candidate AS (
  SELECT r.* FROM runs r LEFT JOIN held h ON h.user_id = r.user_id
  WHERE r.status IN ('QUEUED', 'RETRYING') AND r.available_at <= $1 AND r.lease_owner IS NULL
    AND (SELECT COALESCE(sum(n), 0) FROM held) < $2::float8
    AND COALESCE(h.n, 0) < COALESCE(($3::jsonb ->> r.user_id)::float8, $4::float8)
    AND NOT ${EARLIER_ON_THREAD}
  ORDER BY r.priority DESC, r.created_at, r.run_id
  LIMIT 1
  FOR UPDATE OF r SKIP LOCKED)`;

const CLAIM_NEXT = `WITH overdue AS (SELECT * FROM runs WHERE ${overdueWhere()} FOR UPDATE SKIP LOCKED), ${HELD}, ${CANDIDATE}
SELECT 'sweep' AS pick, * FROM overdue UNION ALL SELECT 'claim' AS pick, * FROM candidate`;

// $2 the run id. Its row is locked (waited for: it is the one asked for).
const CLAIM_RUN = `WITH overdue AS (SELECT * FROM runs WHERE ${overdueWhere()} FOR UPDATE SKIP LOCKED), ${HELD},
target AS (SELECT * FROM runs WHERE run_id = $2 FOR UPDATE)
SELECT 'sweep' AS pick, o.*, NULL::float8 AS held_total, NULL::float8 AS held_by_user, NULL::boolean AS held_back FROM overdue o
UNION ALL
SELECT 'claim' AS pick, r.*, (SELECT COALESCE(sum(n), 0) FROM held), COALESCE((SELECT n FROM held WHERE held.user_id = r.user_id), 0),
  ${EARLIER_ON_THREAD} FROM target r`;

/** Sweeps repeated in one claim before giving up: each round moves every overdue run it found, so one usually suffices. */
const SWEEP_ROUNDS = 3;

/**
 * The statement that serialises claims of one schema until the transaction ends (see the module comment), sent
 * with BEGIN in one round trip: parameterless, so its key is a literal (a 32-bit FNV-1a hash of the schema's name).
 */
export function claimLockStatement(schema: string): string {
  let hash = 0x811c9dc5;
  for (const char of `agentrt_runs_claims:${schema}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return `SELECT pg_advisory_xact_lock(${hash | 0})`;
}

/** Claims the next runnable run; call inside a transaction begun with {@link claimLockStatement}. */
export async function claimNextIn(on: PgQueryable, request: ClaimRequest, now: number): Promise<RunRecord | undefined> {
  const rows = await sweptThen(on, CLAIM_NEXT, [now, ...capValues(request.caps)], now);
  const candidate = rows[0];
  return candidate === undefined ? undefined : claim(on, rowToRun(candidate), request, undefined, now);
}

/** Claims one given run; call inside a transaction begun with {@link claimLockStatement}. See `RunStore.claimRun`. */
export async function claimRunIn(on: PgQueryable, runId: string, request: ClaimRunRequest, now: number): Promise<RunRecord | undefined> {
  const row = (await sweptThen(on, CLAIM_RUN, [now, runId], now))[0];
  if (row === undefined) throw new UnknownRunError(runId);
  const run = rowToRun(row);
  assertUnchanged(run, request.expect);
  // A RETRYING run whose holder still backs off in-process is running elsewhere too.
  if (run.status === "RUNNING" || isHeldRetrying(run)) return undefined;
  assertTransition(run.status, "RUNNING", runId);
  if (Number(row.held_total) >= request.caps.maxRunning) return undefined;
  if (Number(row.held_by_user) >= userCap(request.caps, run.userId)) return undefined;
  if (row.held_back === true) return undefined;
  return claim(on, run, request, request.resume, now);
}

/** Moves every run overdue at `now` (deadline, wait, lease), locked by this transaction; returns them as moved. */
export async function sweepIn(on: PgQueryable, now: number, only?: "waits"): Promise<RunRecord[]> {
  const rows = await pgRows(on, `SELECT * FROM runs WHERE ${overdueWhere(only)} FOR UPDATE SKIP LOCKED`, [now]);
  return applySweep(on, rows.map(rowToRun), now);
}

/** Runs `sql` (overdue rows picked 'sweep', the rest 'claim'), sweeping and running it again while it finds overdue runs. */
async function sweptThen(on: PgQueryable, sql: string, values: unknown[], now: number): Promise<Record<string, unknown>[]> {
  for (let round = 0; round < SWEEP_ROUNDS; round++) {
    const rows = await pgRows(on, sql, values);
    const overdue = rows.filter((row) => row.pick === "sweep").map(rowToRun);
    if (overdue.length === 0) return rows;
    await applySweep(on, overdue, now);
  }
  throw new SystemError("INTERNAL", `runs kept becoming overdue during ${SWEEP_ROUNDS} sweeps of one claim`);
}

/** The sweeps of SQLite's sweepRuns, in its order: deadlines, then waits, then leases (each by run id). */
async function applySweep(on: PgQueryable, overdue: RunRecord[], now: number): Promise<RunRecord[]> {
  const sorted = [...overdue].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
  const deadline = sorted.filter((run) => run.deadlineAt !== null && run.deadlineAt <= now);
  const waits = sorted.filter((run) => !deadline.includes(run) && run.waitExpiresAt !== null && run.waitExpiresAt <= now);
  const leases = sorted.filter((run) => !deadline.includes(run) && !waits.includes(run));
  const moved: RunRecord[] = [];
  for (const run of deadline) moved.push(await move(on, run, "EXPIRED", DEADLINE_EXPIRY, now));
  for (const run of waits) moved.push(await move(on, run, "EXPIRED", waitExpiry(run), now));
  for (const run of leases) {
    const recovery = leaseRecovery(run, now);
    moved.push(recovery === "drop-lease" ? await dropLease(on, run, now) : await move(on, run, recovery.to, recovery.options, now));
  }
  return moved;
}

/** A sweep's transition of a run this transaction has locked. */
async function move(on: PgQueryable, run: RunRecord, to: "EXPIRED" | "FAILED" | "RETRYING", options: TransitionOptions, now: number): Promise<RunRecord> {
  const events = [changeEvent(run.status, to, run.fencingToken, options)];
  const moved = await writeTransition(on, { runId: run.runId, from: run.status, token: run.fencingToken, held: false, to, options, now, events });
  if (moved === undefined) throw new SystemError("INTERNAL", `run ${run.runId}: changed underneath a sweep (${run.status} → ${to})`);
  return moved;
}

async function dropLease(on: PgQueryable, run: RunRecord, now: number): Promise<RunRecord> {
  // Already RETRYING: only the lease goes (no status change, so no event); the token stays for the next claim to bump.
  const rows = await pgRows(
    on,
    "UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL, available_at = $2, error_code = 'LEASE_LOST', updated_at = $2 WHERE run_id = $1 AND status = 'RETRYING' RETURNING *",
    [run.runId, now],
  );
  if (rows[0] === undefined) throw new SystemError("INTERNAL", `run ${run.runId}: changed underneath a sweep (lease of a backoff)`);
  return rowToRun(rows[0]);
}

async function claim(on: PgQueryable, run: RunRecord, request: ClaimRequest, resume: unknown, now: number): Promise<RunRecord> {
  const options: TransitionOptions = { resume, reason: claimReason(run) };
  const fields = { owner: request.workerId, expiresAt: now + request.leaseMs, countsAsAttempt: countsAsAttempt(run) };
  const events = [changeEvent(run.status, "RUNNING", run.fencingToken, options, fields)];
  const claimed = await writeTransition(on, {
    runId: run.runId, from: run.status, token: run.fencingToken, held: false, to: "RUNNING", options, claim: fields, now, events,
  });
  if (claimed === undefined) throw new SystemError("INTERNAL", `run ${run.runId}: changed underneath its claim`);
  return claimed;
}

function capValues(caps: ClaimCaps): [number, string, number] {
  // JSON has no Infinity: an unlimited user's cap travels as the text float8 reads as infinity.
  const limits = JSON.stringify(caps.userLimits, (_key, value: unknown) => (value === Infinity ? "Infinity" : value));
  return [caps.maxRunning, limits, caps.maxRunningPerUser];
}
