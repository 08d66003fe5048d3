/**
 * Leases: the handle a worker holds on a RUNNING run (heartbeat renewal,
 * fenced writes, an AbortSignal that fires when the lease is lost), and the
 * sweeps that recover runs whose lease expired or whose deadline passed.
 * @module
 */
import { LeaseLostError } from "./errors.js";
import type { RunStatus } from "./lifecycle.js";
import type { RunRecord, RunUsage } from "./run-record.js";
import { assertFence } from "./fence.js";
import type { RunStore, TransitionOptions } from "./run-store.js";

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
  /** The store the lease writes to. */
  readonly store: RunStore;

  constructor(store: RunStore, run: RunRecord, leaseMs: number) {
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
        .stmt("UPDATE runs SET lease_expires_at = ? WHERE run_id = ? AND fencing_token = ? AND status = 'RUNNING'")
        .run(expiresAt, this.runId, this.token).changes;
      if (changed === 0) assertFence(this.store.get(this.runId), this.token);
      this.expires = expiresAt;
    });
  }

  /** The current record, after checking the lease is still held. */
  check(): RunRecord {
    return this.fenced(() => {
      const run = this.store.get(this.runId);
      assertFence(run, this.token);
      return run;
    });
  }

  /** A fenced status change as the lease holder (ends the lease unless `to` is RUNNING). */
  transition(to: Exclude<RunStatus, "RUNNING">, options: Omit<TransitionOptions, "fence"> = {}): RunRecord {
    return this.fenced(() => this.store.transition(this.runId, to, { actor: this.workerId, ...options, fence: this.token }));
  }

  /** Adds to the usage counters; returns the new totals. */
  addUsage(delta: Partial<RunUsage>): RunUsage {
    return this.fenced(() => this.store.addUsage(this.runId, this.token, delta));
  }

  /**
   * Schedules another attempt after `delayMs` (RETRYING), or FAILED with
   * ATTEMPTS_EXHAUSTED when the run has used all its attempts.
   */
  retry(options: { delayMs?: number; errorCode?: string; errorMessage?: string; reason?: string } = {}): RunRecord {
    const run = this.check();
    if (run.attempts >= run.maxAttempts) {
      return this.transition("FAILED", { errorCode: "ATTEMPTS_EXHAUSTED", errorMessage: options.errorMessage ?? options.errorCode, reason: options.reason });
    }
    return this.transition("RETRYING", { ...options, availableAt: this.store.clock() + (options.delayMs ?? 0) });
  }

  /** Gives the run back unfinished (worker shutting down): RETRYING, claimable at once. */
  release(reason = "released by worker"): RunRecord {
    return this.transition("RETRYING", { reason });
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

/**
 * Moves RUNNING runs whose lease has expired to RETRYING (error LEASE_LOST),
 * or to FAILED (ATTEMPTS_EXHAUSTED) once they used all their attempts.
 * Call inside the claim transaction.
 */
export function recoverExpiredLeases(store: RunStore, now: number): RunRecord[] {
  const expired = store
    .stmt("SELECT run_id FROM runs WHERE status = 'RUNNING' AND lease_expires_at <= ? ORDER BY run_id")
    .all(now) as { run_id: string }[];
  return expired.map(({ run_id }) => {
    const run = store.get(run_id);
    const owner = run.lease?.owner ?? "unknown worker";
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
export function expireOverdueRuns(store: RunStore, now: number): RunRecord[] {
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
