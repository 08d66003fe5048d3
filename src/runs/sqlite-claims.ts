/**
 * Claims on SQLite: the sweeps, then the choice of a run by priority then age within the global and per-user
 * caps, and its move to RUNNING, as one BEGIN IMMEDIATE transaction, so several processes sharing a file never
 * claim the same run. With fair shares (`ClaimCaps.shares`) the choice is by tenant first (sqlite-shares.ts).
 *
 * Runs of one thread share its checkpoints, so they execute one at a time in creation order: only the oldest
 * unfinished run of a thread is claimable. A run waiting for approval or input therefore holds back the later
 * runs of its thread until it finishes (succeeds, fails, is canceled or expires).
 * @module
 */
import { claimKeySqlite } from "./sqlite-idempotency.js";
import { isHeldRetrying } from "./backoff.js";
import { claimReason, EARLIER_ON_THREAD, earlierUnfinished, userCap } from "./claim-rules.js";
import { expireOverdueRuns, recoverExpiredLeases } from "./lease.js";
import { assertTransition, CLAIMABLE_STATUSES, type RunStatus } from "./lifecycle.js";
import type { RunEvent, RunRecord } from "./run-record.js";
import type { ClaimCaps, ClaimRequest, ClaimRunRequest, CreateRunInput } from "./run-store.js";
import type { SqliteRuns } from "./sqlite-runs.js";
import { sharedCandidate, type Candidate } from "./sqlite-shares.js";
import { assertUnchanged } from "./unchanged.js";
import { expireOverdueWaits } from "./wait-expiry.js";

/** Claim order: higher priority, then older, then smaller id. */
function before(a: Candidate, b: Candidate): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at;
  return a.run_id < b.run_id;
}

/** Expires overdue deadlines and waits, recovers expired leases; call inside the claim's transaction. */
export function sweepRuns(runs: SqliteRuns, now: number): RunRecord[] {
  return [...expireOverdueRuns(runs, now), ...expireOverdueWaits(runs, now), ...recoverExpiredLeases(runs, now)];
}

/** Claims the next runnable run; call inside a transaction. */
export function claimNextNow(runs: SqliteRuns, request: ClaimRequest): RunRecord | undefined {
  const now = runs.clock();
  sweepRuns(runs, now);
  const running = countRunning(runs, request.caps);
  if (running.total >= request.caps.maxRunning) return undefined;
  if (request.caps.shares !== undefined) {
    const shared = sharedCandidate(runs, request.caps, request.caps.shares, now, running.byUser);
    return shared === undefined ? undefined : claim(runs, runs.get(shared.run_id), request, undefined);
  }
  // One index-ordered scan per claimable status (an IN over both would sort every queued run), then the better head wins.
  const heads = CLAIMABLE_STATUSES.map((status) => firstEligible(runs, request.caps, status, now, running.byUser));
  const chosen = heads.reduce<Candidate | undefined>((best, head) => (head !== undefined && (best === undefined || before(head, best)) ? head : best), undefined);
  return chosen === undefined ? undefined : claim(runs, runs.get(chosen.run_id), request, undefined);
}

/** Claims one given run; call inside a transaction. See `RunStore.claimRun`. */
export function claimRunNow(runs: SqliteRuns, runId: string, request: ClaimRunRequest): RunRecord | undefined {
  sweepRuns(runs, runs.clock());
  const run = runs.get(runId);
  assertUnchanged(run, request.expect);
  // A RETRYING run whose holder still backs off in-process is running elsewhere too.
  if (run.status === "RUNNING" || isHeldRetrying(run)) return undefined;
  assertTransition(run.status, "RUNNING", runId);
  if (atCap(countRunning(runs, request.caps), request.caps, run.userId)) return undefined;
  if (runs.stmt(`SELECT 1 FROM runs r WHERE r.run_id = ? AND ${EARLIER_ON_THREAD}`).get(runId) !== undefined) return undefined;
  return claim(runs, run, request, request.resume);
}

/**
 * Creates a run and claims it when it may be claimed; call inside a transaction. The same checks, in the same order,
 * as a create then {@link claimRunNow} — sweeps, caps, an older unfinished run of its thread — made before the row
 * exists, so a claimable run is written once, already claimed (SqliteRuns.createClaimedNow), and a held-back one QUEUED.
 */
export function createAndClaimNow(
  runs: SqliteRuns, input: CreateRunInput, request: ClaimRequest,
): { run: RunRecord; claimed: RunRecord | undefined; events?: RunEvent[] } {
  const values = runs.newValues(input);
  const [runId, threadId, , userId, , , deadlineAt, , , , , createdAt] = values;
  if (input.idempotency !== undefined) claimKeySqlite(runs.db, userId, input.idempotency, runId, createdAt);
  const sweptAt = runs.clock();
  if (deadlineAt !== null && deadlineAt <= sweptAt) {
    // Due at once: the claim's sweep expires it (and the claim refuses it) as it always did.
    const run = runs.createNow(values);
    return { run, claimed: claimRunNow(runs, runId, request) };
  }
  sweepRuns(runs, sweptAt);
  const held = atCap(countRunning(runs, request.caps), request.caps, userId)
    || runs.stmt(EARLIER_THAN_NEW).get(threadId, createdAt, createdAt, runId) !== undefined;
  if (held) return { run: runs.createNow(values), claimed: undefined };
  const expiresAt = runs.clock() + request.leaseMs;
  return runs.createClaimedNow(values, { owner: request.workerId, expiresAt }, runs.clock());
}

/** {@link EARLIER_ON_THREAD} for a run not written yet: (thread, created_at, created_at, run_id) as parameters. */
const EARLIER_THAN_NEW = `${earlierUnfinished("?", "?", "?")} LIMIT 1`;

/** True while any run is RUNNING, or QUEUED or RETRYING and not held back by a waiting run of its thread. */
export function hasPendingWorkNow(runs: SqliteRuns): boolean {
  if (runs.stmt("SELECT 1 FROM runs WHERE status = 'RUNNING' LIMIT 1").get() !== undefined) return true;
  // A run behind an older unfinished one is pending only through that older run, which this query or the one above finds.
  return runs.stmt(`SELECT 1 FROM runs r WHERE r.status IN ('QUEUED', 'RETRYING') AND NOT ${EARLIER_ON_THREAD} LIMIT 1`).get() !== undefined;
}

function claim(runs: SqliteRuns, run: RunRecord, request: ClaimRequest, resume: unknown): RunRecord {
  const expiresAt = runs.clock() + request.leaseMs;
  return runs.applyTransition(run, "RUNNING", { resume, reason: claimReason(run) }, { owner: request.workerId, expiresAt });
}

function firstEligible(runs: SqliteRuns, caps: ClaimCaps, status: RunStatus, now: number, runningByUser: Map<string, number>): Candidate | undefined {
  const rows = runs
    .stmt(
      // lease_owner: a RETRYING run backing off in its holder's process keeps its lease (expired ones were swept).
      `SELECT run_id, user_id, priority, created_at FROM runs r WHERE status = ? AND available_at <= ? AND lease_owner IS NULL
         AND NOT ${EARLIER_ON_THREAD}
       ORDER BY priority DESC, created_at, run_id`,
    )
    .iterate(status, now) as IterableIterator<Candidate>;
  for (const row of rows) {
    if ((runningByUser.get(row.user_id) ?? 0) < userCap(caps, row.user_id)) return row;
  }
  return undefined;
}

/** Whether a run of `userId` would exceed the total or its user's cap, given the runs `running`. */
function atCap(running: { total: number; byUser: Map<string, number> }, caps: ClaimCaps, userId: string): boolean {
  return running.total >= caps.maxRunning || (running.byUser.get(userId) ?? 0) >= userCap(caps, userId);
}

/** No run counted: what every comparison with an infinite cap needs. */
const UNCOUNTED: { total: number; byUser: Map<string, number> } = { total: 0, byUser: new Map() };

/**
 * Runs that occupy a slot, in all and per user. Without a finite cap (the default) nothing is compared with them, so
 * nothing is counted: the GROUP BY reads every running run on each claim.
 */
function countRunning(runs: SqliteRuns, caps: ClaimCaps): { total: number; byUser: Map<string, number> } {
  if (caps.maxRunning === Infinity && caps.maxRunningPerUser === Infinity && Object.keys(caps.userLimits).length === 0) return UNCOUNTED;
  const rows = runs
    // A held RETRYING run (in-process backoff) still occupies its slot.
    .stmt("SELECT user_id, COUNT(*) AS n FROM runs WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL GROUP BY user_id")
    .all() as { user_id: string; n: number }[];
  const byUser = new Map(rows.map((r) => [r.user_id, r.n]));
  return { total: rows.reduce((sum, r) => sum + r.n, 0), byUser };
}
