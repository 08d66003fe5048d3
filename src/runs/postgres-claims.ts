/**
 * Claims and sweeps on PostgreSQL, each inside the caller's transaction: the same rules as SQLite's
 * (sqlite-claims.ts): priority then age (or fair shares among tenants, fair-shares.ts), the total and per-user
 * caps counted over held leases, only the oldest unfinished run of a thread claimable, and the sweeps (overdue
 * deadlines, overdue waits, expired leases) first.
 *
 * Concurrency: no schema-wide lock. The run is picked `FOR UPDATE SKIP LOCKED` from an index of the claimable runs
 * alone, so claimers pass over (never wait for) one another's runs and a claim costs the same with 0 or 50,000 runs
 * leased. Only a finite cap serialises claims, and only those under it (postgres-claim-caps.ts); fair shares lock
 * one tenant's row, again SKIP LOCKED, so concurrent claims take the next tenants.
 * @module
 */
import type { PgQueryable } from "../db/postgres/index.js";
import { SystemError } from "../errors.js";
import { isHeldRetrying } from "./backoff.js";
import { claimReason, EARLIER_ON_THREAD } from "./claim-rules.js";
import { UnknownRunError } from "./errors.js";
import { passStep } from "./fair-shares.js";
import { DEADLINE_EXPIRY, leaseRecovery } from "./lease.js";
import { assertTransition } from "./lifecycle.js";
import { hasUserCaps, lockTotal, underCaps, userCapFilter, userCapValues } from "./postgres-claim-caps.js";
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

// A run that may be claimed at $1 (alias `r`); the partial index runs_claimable holds exactly these but available_at.
const CLAIMABLE = "r.status IN ('QUEUED', 'RETRYING') AND r.available_at <= $1 AND r.lease_owner IS NULL";
const OVERDUE = `overdue AS (SELECT * FROM runs WHERE ${overdueWhere()} FOR UPDATE SKIP LOCKED)`;

/**
 * The statement that sweeps then picks the next run ($1 now, $2 users passed over): by priority then age, or
 * under fair shares the best run of the tenant with the lowest pass (its row locked too). Rows: 'sweep' for the
 * overdue runs; 'claim' for the pick, `tenant` set under shares (the run's columns null when its runs were locked).
 */
export function pickStatement(caps: ClaimCaps): string {
  const eligible = `${CLAIMABLE} AND r.user_id <> ALL($2::text[]) ${userCapFilter(caps, 3)} AND NOT ${EARLIER_ON_THREAD}`;
  const order = "ORDER BY r.priority DESC, r.created_at, r.run_id LIMIT 1 FOR UPDATE OF r SKIP LOCKED";
  if (caps.shares === undefined) {
    return `WITH ${OVERDUE}, candidate AS (SELECT r.* FROM runs r WHERE ${eligible} ${order})
SELECT 'sweep' AS pick, NULL::text AS tenant, * FROM overdue UNION ALL SELECT 'claim' AS pick, NULL::text, * FROM candidate`;
  }
  return `WITH ${OVERDUE},
tenant AS (SELECT t.tenant FROM tenant_shares t WHERE EXISTS (SELECT 1 FROM runs r WHERE r.user_id = t.tenant AND ${eligible})
  ORDER BY t.pass, t.tenant LIMIT 1 FOR UPDATE OF t SKIP LOCKED),
candidate AS (SELECT r.* FROM runs r, tenant WHERE r.user_id = tenant.tenant AND ${eligible} ${order})
SELECT 'sweep' AS pick, NULL::text AS tenant, * FROM overdue
UNION ALL SELECT 'claim' AS pick, tenant.tenant, c.* FROM tenant LEFT JOIN candidate c ON true`;
}

// $2 the run id. Its row is locked (waited for: it is the one asked for).
const CLAIM_RUN = `WITH ${OVERDUE}, target AS (SELECT * FROM runs WHERE run_id = $2 FOR UPDATE)
SELECT 'sweep' AS pick, o.*, NULL::boolean AS held_back FROM overdue o
UNION ALL SELECT 'claim' AS pick, r.*, ${EARLIER_ON_THREAD} FROM target r`;

// A claim under fair shares advances its tenant's pass (every run's user has a row: made by V4 and at each insert).
const ADVANCE = "UPDATE tenant_shares SET pass = pass + $2 WHERE tenant = $1";
const ADVANCE_IF_FREE = "UPDATE tenant_shares SET pass = pass + $2 WHERE tenant = (SELECT tenant FROM tenant_shares WHERE tenant = $1 FOR UPDATE SKIP LOCKED)";

/** Sweeps repeated in one claim before giving up: each round moves every overdue run it found, so one usually suffices. */
const SWEEP_ROUNDS = 3;
/** Picks in one claim: each one passes over a user found at its cap, or a tenant whose runs others hold locked. */
const PICK_ROUNDS = 8;

/** Claims the next runnable run; call inside a transaction. */
export async function claimNextIn(on: PgQueryable, request: ClaimRequest, now: number): Promise<RunRecord | undefined> {
  const { caps } = request;
  await lockTotal(on, caps);
  const statement = pickStatement(caps);
  const passedOver: string[] = [];
  for (let round = 0; round < PICK_ROUNDS; round++) {
    const values = [now, passedOver, ...(hasUserCaps(caps) ? userCapValues(caps) : [])];
    let pick = (await sweptThen(on, statement, values, now))[0];
    // Every tenant with work has its row held by another claim in flight (more claimers than tenants): take the
    // best run by priority and age rather than report no work while runs wait (its `tenant` is then null).
    if (pick === undefined && caps.shares !== undefined) pick = (await sweptThen(on, pickStatement({ ...caps, shares: undefined }), values, now))[0];
    if (pick === undefined) return undefined;
    if (pick.run_id === null) {
      passedOver.push(String(pick.tenant));
      continue;
    }
    const run = rowToRun(pick);
    const room = await underCaps(on, caps, run.userId);
    if (room === "total") return undefined;
    if (room === "user") {
      passedOver.push(run.userId);
      continue;
    }
    // A run picked without its tenant's row charges the pass only when that row is free: waiting for it, while
    // holding rows or cap locks of its own, could deadlock with the claim that holds it.
    if (caps.shares !== undefined) await on.query(pick.tenant === null ? ADVANCE_IF_FREE : ADVANCE, [run.userId, passStep(caps.shares, run.userId)]);
    return claim(on, run, request, undefined, now);
  }
  return undefined;
}

/** Claims one given run; call inside a transaction. See `RunStore.claimRun`. */
export async function claimRunIn(on: PgQueryable, runId: string, request: ClaimRunRequest, now: number): Promise<RunRecord | undefined> {
  const row = (await sweptThen(on, CLAIM_RUN, [now, runId], now))[0];
  if (row === undefined) throw new UnknownRunError(runId);
  const run = rowToRun(row);
  assertUnchanged(run, request.expect);
  // A RETRYING run whose holder still backs off in-process is running elsewhere too.
  if (run.status === "RUNNING" || isHeldRetrying(run)) return undefined;
  assertTransition(run.status, "RUNNING", runId);
  if (row.held_back === true) return undefined;
  await lockTotal(on, request.caps);
  if ((await underCaps(on, request.caps, run.userId)) !== "ok") return undefined;
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
