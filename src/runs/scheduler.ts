/**
 * The scheduler: claims runnable runs by priority then age, within a global
 * cap and per-user caps, as one BEGIN IMMEDIATE transaction so several
 * processes sharing a file never claim the same run.
 *
 * Runs of one thread share its checkpoints, so they execute one at a time in
 * creation order: only the oldest unfinished run of a thread is claimable. A
 * run waiting for approval or input therefore holds back the later runs of its
 * thread until it finishes (succeeds, fails, is canceled or expires).
 * @module
 */
import { UserInputError } from "../errors.js";
import { isHeldRetrying } from "./backoff.js";
import { expireOverdueRuns, recoverExpiredLeases, RunLease } from "./lease.js";
import { assertTransition, CLAIMABLE_STATUSES, type RunStatus } from "./lifecycle.js";
import { countsAsAttempt } from "./transition-write.js";
import type { RunRecord } from "./run-record.js";
import type { SqliteRunStore } from "./sqlite-run-store.js";
import { assertUnchanged, type ExpectedRunState } from "./unchanged.js";
import { expireOverdueWaits } from "./wait-expiry.js";

/** Caps the scheduler honours; counted over RUNNING runs of the whole file, every process. */
export interface SchedulerOptions {
  /** Most runs RUNNING at once across all workers. @default Infinity */
  maxRunning?: number;
  /** Most runs RUNNING at once for one user. @default Infinity */
  maxRunningPerUser?: number;
  /** Per-user overrides of `maxRunningPerUser`. @default {} */
  userLimits?: Record<string, number>;
}

/** Who claims and for how long. */
export interface ClaimOptions {
  workerId: string;
  /** Lease duration; renew before it passes. */
  leaseMs: number;
}

/** A run just claimed, with the lease to execute it under. */
export interface ClaimedRun {
  /** The run as RUNNING, after the claim. */
  run: RunRecord;
  lease: RunLease;
}

/** Unfinished runs of the same thread created before run `r` (the outer query's alias). */
const EARLIER_ON_THREAD = `EXISTS (SELECT 1 FROM runs o WHERE o.thread_id = r.thread_id
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

/** Claims runs for workers. */
export class Scheduler {
  readonly store: SqliteRunStore;
  private readonly options: Required<SchedulerOptions>;

  constructor(store: SqliteRunStore, options: SchedulerOptions = {}) {
    this.store = store;
    this.options = {
      maxRunning: options.maxRunning ?? Infinity,
      maxRunningPerUser: options.maxRunningPerUser ?? Infinity,
      userLimits: options.userLimits ?? {},
    };
    for (const [name, cap] of Object.entries({ maxRunning: this.options.maxRunning, maxRunningPerUser: this.options.maxRunningPerUser, ...this.options.userLimits })) {
      if (!(cap >= 1)) throw new UserInputError("BAD_INPUT", `scheduler cap ${name} must be at least 1 (got ${cap})`);
    }
  }

  /**
   * Claims the next runnable run (QUEUED or due RETRYING; highest priority,
   * then oldest) whose user is under its cap; undefined when none is or the
   * global cap is reached. Expired leases and deadlines are swept first.
   */
  claimNext(options: ClaimOptions): ClaimedRun | undefined {
    return this.store.transaction(() => {
      const now = this.sweep();
      const running = this.countRunning();
      if (running.total >= this.options.maxRunning) return undefined;
      // One index-ordered scan per claimable status (an IN over both would sort every queued run), then the better head wins.
      const heads = CLAIMABLE_STATUSES.map((status) => this.firstEligible(status, now, running.byUser));
      const chosen = heads.reduce<Candidate | undefined>((best, head) => (head !== undefined && (best === undefined || before(head, best)) ? head : best), undefined);
      return chosen === undefined ? undefined : this.claim(this.store.get(chosen.run_id), options, undefined);
    });
  }

  /**
   * Claims one given run now: QUEUED, RETRYING (even before its delay) or
   * WAITING_* (resumed straight into RUNNING, with `resume` stored). Returns
   * undefined when it is RUNNING elsewhere, a cap is reached or an older run
   * of its thread has not finished; throws ILLEGAL_TRANSITION for a finished run,
   * and RUN_NOT_WAITING (nothing changed) when `expect` no longer matches the run.
   */
  claimRun(runId: string, options: ClaimOptions & { resume?: unknown; expect?: ExpectedRunState }): ClaimedRun | undefined {
    return this.store.transaction(() => {
      this.sweep();
      const run = this.store.get(runId);
      assertUnchanged(run, options.expect);
      // A RETRYING run whose holder still backs off in-process is running elsewhere too.
      if (run.status === "RUNNING" || isHeldRetrying(run)) return undefined;
      assertTransition(run.status, "RUNNING", runId);
      const running = this.countRunning();
      if (running.total >= this.options.maxRunning) return undefined;
      if ((running.byUser.get(run.userId) ?? 0) >= this.userCap(run.userId)) return undefined;
      if (this.store.stmt(`SELECT 1 FROM runs r WHERE r.run_id = ? AND ${EARLIER_ON_THREAD}`).get(runId) !== undefined) return undefined;
      return this.claim(run, options, options.resume);
    });
  }

  /**
   * True while any run is RUNNING (by any worker), or QUEUED or RETRYING and not held
   * back by a waiting run of its thread: work may still arrive.
   */
  hasPendingWork(): boolean {
    if (this.store.stmt("SELECT 1 FROM runs WHERE status = 'RUNNING' LIMIT 1").get() !== undefined) return true;
    // A run behind an older unfinished one is pending only through that older run, which this query or the one above finds.
    return this.store.stmt(`SELECT 1 FROM runs r WHERE r.status IN ('QUEUED', 'RETRYING') AND NOT ${EARLIER_ON_THREAD} LIMIT 1`).get() !== undefined;
  }

  /** Runs the expiry sweeps on their own (claims run them too); returns the runs moved. */
  sweepNow(): RunRecord[] {
    return this.store.transaction(() => {
      const now = this.store.clock();
      return [...expireOverdueRuns(this.store, now), ...expireOverdueWaits(this.store, now), ...recoverExpiredLeases(this.store, now)];
    });
  }

  private sweep(): number {
    const now = this.store.clock();
    expireOverdueRuns(this.store, now);
    expireOverdueWaits(this.store, now);
    recoverExpiredLeases(this.store, now);
    return now;
  }

  private claim(run: RunRecord, options: ClaimOptions, resume: unknown): ClaimedRun {
    const expiresAt = this.store.clock() + options.leaseMs;
    const claimed = this.store.applyTransition(
      run,
      "RUNNING",
      { resume, reason: !countsAsAttempt(run) ? "claimed to resume" : run.attempts === 0 ? "claimed" : `claimed for attempt ${run.attempts + 1}` },
      { owner: options.workerId, expiresAt },
    );
    return { run: claimed, lease: new RunLease(this.store, claimed, options.leaseMs) };
  }

  private firstEligible(status: RunStatus, now: number, runningByUser: Map<string, number>): Candidate | undefined {
    const rows = this.store
      .stmt(
        // lease_owner: a RETRYING run backing off in its holder's process keeps its lease (expired ones were swept).
        `SELECT run_id, user_id, priority, created_at FROM runs r WHERE status = ? AND available_at <= ? AND lease_owner IS NULL
           AND NOT ${EARLIER_ON_THREAD}
         ORDER BY priority DESC, created_at, run_id`,
      )
      .iterate(status, now) as IterableIterator<Candidate>;
    for (const row of rows) {
      if ((runningByUser.get(row.user_id) ?? 0) < this.userCap(row.user_id)) return row;
    }
    return undefined;
  }

  private countRunning(): { total: number; byUser: Map<string, number> } {
    const rows = this.store
      // A held RETRYING run (in-process backoff) still occupies its slot.
      .stmt("SELECT user_id, COUNT(*) AS n FROM runs WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL GROUP BY user_id")
      .all() as { user_id: string; n: number }[];
    const byUser = new Map(rows.map((r) => [r.user_id, r.n]));
    return { total: rows.reduce((sum, r) => sum + r.n, 0), byUser };
  }

  private userCap(userId: string): number {
    return this.options.userLimits[userId] ?? this.options.maxRunningPerUser;
  }
}
