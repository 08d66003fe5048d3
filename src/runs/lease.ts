/**
 * Leases: the handle a worker holds on a RUNNING run (heartbeat renewal,
 * fenced writes, an AbortSignal that fires when the lease is lost), and the
 * sweeps that recover runs whose lease expired or whose deadline passed.
 * @module
 */
import { LeaseLostError } from "./errors.js";
import type { RunStatus } from "./lifecycle.js";
import type { RunRecord, RunUsage } from "./run-record.js";
import { setBackoff } from "./backoff.js";
import { assertFence } from "./fence.js";
import type { SqliteRunStore, TransitionOptions } from "./sqlite-run-store.js";

/** Lease durations come from here unless given: env `AGENTRT_LEASE_MS`, else 30 s. */
export function defaultLeaseMs(env: NodeJS.ProcessEnv = process.env): number {
  const parsed = Number(env.AGENTRT_LEASE_MS);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : 30_000;
}

/**
 * A worker's lease on one RUNNING run. Every write through it is fenced by
 * its token; when any of them (or a heartbeat) finds the lease gone, `signal`
 * aborts with the {@link LeaseLostError} as its reason.
 */
export class RunLease {
  readonly runId: string;
  readonly workerId: string;
  /** The fencing token this lease writes with. */
  readonly token: number;
  readonly leaseMs: number;
  /** Aborted when the lease is lost (taken over, canceled, expired) or by the worker. */
  readonly signal: AbortSignal;
  private expires: number;
  private readonly controller = new AbortController();
  /** True between startBackoff and endBackoff: the run shows RETRYING under this lease (no read needed to know). */
  private backingOff = false;
  private deferred: Partial<RunUsage> | undefined;
  /** The store the lease writes to. */
  readonly store: SqliteRunStore;

  constructor(store: SqliteRunStore, run: RunRecord, leaseMs: number) {
    if (run.lease === null) throw new TypeError(`run ${run.runId} has no lease`);
    this.store = store;
    this.runId = run.runId;
    this.workerId = run.lease.owner;
    this.token = run.fencingToken;
    this.expires = run.lease.expiresAt;
    this.leaseMs = leaseMs;
    this.signal = this.controller.signal;
  }

  /** When the lease runs out unless renewed (epoch ms). */
  get expiresAt(): number {
    return this.expires;
  }

  /** True once the signal has aborted. */
  get lost(): boolean {
    return this.signal.aborted;
  }

  /** Heartbeat: extends the lease by `leaseMs` from now; throws LeaseLostError if it is gone. */
  renew(): void {
    this.fenced(() => {
      const expiresAt = this.store.clock() + this.leaseMs;
      const changed = this.store
        // A RETRYING run with an owner is backing off in this holder's process: its lease stays renewed.
        .stmt("UPDATE runs SET lease_expires_at = ? WHERE run_id = ? AND fencing_token = ? AND status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL")
        .run(expiresAt, this.runId, this.token).changes;
      if (changed === 0) assertFence(this.store.get(this.runId), this.token);
      this.expires = expiresAt;
    });
  }

  /** The current record, after checking the lease is still held. */
  check(): RunRecord {
    return this.fenced(() => {
      this.flushUsage();
      const run = this.store.get(this.runId);
      assertFence(run, this.token);
      return run;
    });
  }

  /** Throws LeaseLostError unless the lease is still held; one indexed read, no record built. */
  assertHeld(): void {
    this.fenced(() => this.assertHeldNow());
  }

  /**
   * Fences a write of another module's transaction (a checkpoint): throws LeaseLostError unless the
   * lease is held, and writes the deferred usage in that same transaction, so it commits with it.
   * Returns the function that defers that usage again, for when the transaction does not commit.
   */
  fenceWrite(): () => void {
    return this.fenced(() => {
      this.assertHeldNow();
      const written = this.flushUsage();
      return () => {
        if (written !== undefined) this.deferred = sumUsage(this.deferred, written);
      };
    });
  }

  private assertHeldNow(): void {
    const held = this.store
      .stmt("SELECT 1 FROM runs WHERE run_id = ? AND fencing_token = ? AND (status = 'RUNNING' OR (status = 'RETRYING' AND lease_owner IS NOT NULL))")
      .get(this.runId, this.token);
    if (held === undefined) assertFence(this.store.get(this.runId), this.token);
  }

  /** A fenced status change as the lease holder (ends the lease unless `to` is RUNNING). */
  transition(to: Exclude<RunStatus, "RUNNING">, options: Omit<TransitionOptions, "fence"> = {}): RunRecord {
    return this.fenced(() => this.store.transaction(() => {
      this.flushUsage();
      // An outcome is written from RUNNING: a backoff still shown (its end not recorded) ends first.
      if (this.backingOff) this.endBackoff("backoff ended");
      return this.store.transition(this.runId, to, { actor: this.workerId, ...options, fence: this.token });
    }));
  }

  /** Shows the run RETRYING while a tool backs off here; the lease stays held, so no other worker claims it. */
  startBackoff(reason: string): RunRecord {
    const run = this.fenced(() => setBackoff(this.store, this.runId, this.token, "RETRYING", { actor: this.workerId, reason }));
    this.backingOff = true;
    return run;
  }

  /** Back to RUNNING (same lease, token and attempt) when the next attempt starts. */
  endBackoff(reason: string): RunRecord {
    const run = this.fenced(() => setBackoff(this.store, this.runId, this.token, "RUNNING", { actor: this.workerId, reason }));
    this.backingOff = false;
    return run;
  }

  /** Adds to the usage counters; returns the new totals. */
  addUsage(delta: Partial<RunUsage>): RunUsage {
    return this.fenced(() => this.store.addUsage(this.runId, this.token, sumUsage(this.takeDeferred(), delta)));
  }

  /**
   * Adds usage written with this lease's next write (a fenced checkpoint write, usage, check, status
   * change) instead of in a commit of its own: a model call's or a tool call's step. Budgets read
   * usage through {@link check}, which writes it first; a holder that dies before that write loses
   * only these counts.
   */
  deferUsage(delta: Partial<RunUsage>): void {
    this.deferred = sumUsage(this.deferred, delta);
  }

  /** Writes the deferred usage; returns what it wrote. A failed write keeps it deferred. */
  private flushUsage(): Partial<RunUsage> | undefined {
    const pending = this.takeDeferred();
    if (pending === undefined) return undefined;
    try {
      this.store.addUsage(this.runId, this.token, pending);
    } catch (error) {
      this.deferred = sumUsage(this.deferred, pending);
      throw error;
    }
    return pending;
  }

  private takeDeferred(): Partial<RunUsage> | undefined {
    const pending = this.deferred;
    this.deferred = undefined;
    return pending;
  }

  /**
   * Schedules another attempt after `delayMs` (RETRYING), or FAILED with
   * ATTEMPTS_EXHAUSTED when the run has used all its attempts. With `refundAttempt`
   * (the run was stopped by something outside it, e.g. a full disk) this attempt is
   * given back and never exhausts the run.
   */
  retry(options: { delayMs?: number; errorCode?: string; errorMessage?: string; reason?: string; refundAttempt?: boolean } = {}): RunRecord {
    const run = this.check();
    if (options.refundAttempt !== true && run.attempts >= run.maxAttempts) {
      return this.transition("FAILED", { errorCode: "ATTEMPTS_EXHAUSTED", errorMessage: options.errorMessage ?? options.errorCode, reason: options.reason });
    }
    return this.transition("RETRYING", { ...options, availableAt: this.store.clock() + (options.delayMs ?? 0) });
  }

  /** Gives the run back unfinished (worker shutting down): RETRYING, claimable at once; the attempt is not counted. */
  release(reason = "released by worker"): RunRecord {
    return this.transition("RETRYING", { reason, refundAttempt: true });
  }

  /** Aborts the signal (used by the worker on shutdown); does not write. */
  abort(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  private fenced<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (error instanceof LeaseLostError) this.abort(error);
      throw error;
    }
  }
}

function sumUsage(a: Partial<RunUsage> | undefined, b: Partial<RunUsage>): Partial<RunUsage> {
  if (a === undefined) return b;
  return {
    steps: (a.steps ?? 0) + (b.steps ?? 0),
    modelCalls: (a.modelCalls ?? 0) + (b.modelCalls ?? 0),
    tokens: (a.tokens ?? 0) + (b.tokens ?? 0),
    costUsd: (a.costUsd ?? 0) + (b.costUsd ?? 0),
  };
}

/**
 * Moves RUNNING runs whose lease has expired to RETRYING (error LEASE_LOST),
 * or to FAILED (ATTEMPTS_EXHAUSTED) once they used all their attempts.
 * Call inside the claim transaction.
 */
export function recoverExpiredLeases(store: SqliteRunStore, now: number): RunRecord[] {
  const expired = store
    // A held RETRYING run (in-process backoff) whose holder stopped heartbeating has lost its lease too.
    .stmt("SELECT run_id FROM runs WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL AND lease_expires_at <= ? ORDER BY run_id")
    .all(now) as { run_id: string }[];
  return expired.map(({ run_id }) => {
    const run = store.get(run_id);
    const owner = run.lease?.owner ?? "unknown worker";
    if (run.status === "RETRYING" && run.attempts < run.maxAttempts) {
      // Already RETRYING: only the lease goes (no status change, so no event); the token stays for the next claim to bump.
      store
        .stmt("UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL, available_at = ?, error_code = 'LEASE_LOST', updated_at = ? WHERE run_id = ? AND status = 'RETRYING'")
        .run(now, now, run_id);
      return store.get(run_id);
    }
    if (run.attempts >= run.maxAttempts) {
      return store.applyTransition(run, "FAILED", {
        errorCode: "ATTEMPTS_EXHAUSTED",
        errorMessage: `lease of ${owner} expired on attempt ${run.attempts} of ${run.maxAttempts}`,
        reason: "lease expired",
      });
    }
    return store.applyTransition(run, "RETRYING", { errorCode: "LEASE_LOST", reason: `lease of ${owner} expired`, availableAt: now });
  });
}

/** Moves every unfinished run whose deadline has passed to EXPIRED (DEADLINE_EXCEEDED). */
export function expireOverdueRuns(store: SqliteRunStore, now: number): RunRecord[] {
  const overdue = store
    .stmt(
      // Same terms as the partial index runs_by_open_deadline, so finished runs are never scanned.
      `SELECT run_id FROM runs WHERE deadline_at IS NOT NULL AND deadline_at <= ?
         AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED')`,
    )
    .all(now) as { run_id: string }[];
  return overdue.map(({ run_id }) =>
    store.applyTransition(store.get(run_id), "EXPIRED", { errorCode: "DEADLINE_EXCEEDED", reason: "deadline passed" }),
  );
}
