/**
 * Claims on SQLite: the sweeps, then the choice of a run by priority then age within the global and per-user
 * caps, and its move to RUNNING, as one BEGIN IMMEDIATE transaction, so several processes sharing a file never
 * claim the same run.
 *
 * Runs of one thread share its checkpoints, so they execute one at a time in creation order: only the oldest
 * unfinished run of a thread is claimable. A run waiting for approval or input therefore holds back the later
 * runs of its thread until it finishes (succeeds, fails, is canceled or expires).
 * @module
 */
import { isHeldRetrying } from "./backoff.js";
import { expireOverdueRuns, recoverExpiredLeases } from "./lease.js";
import { assertTransition, CLAIMABLE_STATUSES, type RunStatus } from "./lifecycle.js";
import type { RunRecord } from "./run-record.js";
import type { ClaimCaps, ClaimRequest, ClaimRunRequest } from "./run-store.js";
import type { SqliteRuns } from "./sqlite-runs.js";
import { countsAsAttempt } from "./transition-write.js";
import { assertUnchanged } from "./unchanged.js";
import { expireOverdueWaits } from "./wait-expiry.js";

/** Unfinished runs of the same thread created before run `r` (the outer query's alias). */
export const EARLIER_ON_THREAD = `EXISTS (SELECT 1 FROM runs o WHERE o.thread_id = r.thread_id
  AND o.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED')
  AND (o.created_at < r.created_at OR (o.created_at = r.created_at AND o.run_id < r.run_id)))`;

interface Candidate {
  run_id: string;
  user_id: string;
  priority: number;
  created_at: number;
}

/** Claim order: higher priority, then older, then smaller id. */
function before(a: Candidate, b: Candidate): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at;
  return a.run_id < b.run_id;
}

/** The cap of one user. */
export function userCap(caps: ClaimCaps, userId: string): number {
  return caps.userLimits[userId] ?? caps.maxRunningPerUser;
}

/** Expires overdue deadlines and waits, recovers expired leases; call inside the claim's transaction. */
export function sweepRuns(runs: SqliteRuns, now: number): RunRecord[] {
  return [...expireOverdueRuns(runs, now), ...expireOverdueWaits(runs, now), ...recoverExpiredLeases(runs, now)];
}

/** Claims the next runnable run; call inside a transaction. */
export function claimNextNow(runs: SqliteRuns, request: ClaimRequest): RunRecord | undefined {
  const now = runs.clock();
  sweepRuns(runs, now);
  const running = countRunning(runs);
  if (running.total >= request.caps.maxRunning) return undefined;
  // One index-ordered scan per claimable status (an IN over both would sort every queued run), then the better head wins.
  const heads = CLAIMABLE_STATUSES.map((status) => firstEligible(runs, request.caps, status, now, running.byUser));
  const chosen = heads.reduce<Candidate | undefined>((best, head) => (head !== undefined && (best === undefined || before(head, best)) ? head : best), undefined);
  return chosen === undefined ? undefined : claim(runs, runs.get(chosen.run_id), request, undefined);
}

/** Claims one given run; call inside a transaction. See `RunStore.claimRun`; `known` is its record as this transaction just wrote it. */
export function claimRunNow(runs: SqliteRuns, runId: string, request: ClaimRunRequest, known?: RunRecord): RunRecord | undefined {
  const swept = sweepRuns(runs, runs.clock());
  // `known`: the record as this transaction wrote it (just created); read again only if a sweep changed it.
  const run = known !== undefined && known.runId === runId && !swept.some((r) => r.runId === runId) ? known : runs.get(runId);
  assertUnchanged(run, request.expect);
  // A RETRYING run whose holder still backs off in-process is running elsewhere too.
  if (run.status === "RUNNING" || isHeldRetrying(run)) return undefined;
  assertTransition(run.status, "RUNNING", runId);
  const running = countRunning(runs);
  if (running.total >= request.caps.maxRunning) return undefined;
  if ((running.byUser.get(run.userId) ?? 0) >= userCap(request.caps, run.userId)) return undefined;
  if (runs.stmt(`SELECT 1 FROM runs r WHERE r.run_id = ? AND ${EARLIER_ON_THREAD}`).get(runId) !== undefined) return undefined;
  return claim(runs, run, request, request.resume);
}

/** True while any run is RUNNING, or QUEUED or RETRYING and not held back by a waiting run of its thread. */
export function hasPendingWorkNow(runs: SqliteRuns): boolean {
  if (runs.stmt("SELECT 1 FROM runs WHERE status = 'RUNNING' LIMIT 1").get() !== undefined) return true;
  // A run behind an older unfinished one is pending only through that older run, which this query or the one above finds.
  return runs.stmt(`SELECT 1 FROM runs r WHERE r.status IN ('QUEUED', 'RETRYING') AND NOT ${EARLIER_ON_THREAD} LIMIT 1`).get() !== undefined;
}

/** The reason a claim's event records. */
export function claimReason(run: RunRecord): string {
  return !countsAsAttempt(run) ? "claimed to resume" : run.attempts === 0 ? "claimed" : `claimed for attempt ${run.attempts + 1}`;
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

function countRunning(runs: SqliteRuns): { total: number; byUser: Map<string, number> } {
  const rows = runs
    // A held RETRYING run (in-process backoff) still occupies its slot.
    .stmt("SELECT user_id, COUNT(*) AS n FROM runs WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL GROUP BY user_id")
    .all() as { user_id: string; n: number }[];
  const byUser = new Map(rows.map((r) => [r.user_id, r.n]));
  return { total: rows.reduce((sum, r) => sum + r.n, 0), byUser };
}
