/**
 * Leases: the handle a worker holds on a RUNNING run (heartbeat renewal,
 * fenced writes, an AbortSignal that fires when the lease is lost), and the
 * sweeps that recover runs whose lease expired or whose deadline passed.
 * @module
 */
import { LeaseLostError } from "./errors.js";
import type { RunStatus } from "./lifecycle.js";
import type { RunRecord, RunUsage } from "./run-record.js";
import type { StoreTransaction } from "../db/index.js";
import type { RunStore } from "./run-store.js";
import type { SqliteRuns } from "./sqlite-runs.js";
import type { TransitionOptions } from "./transition-write.js";
import type { WithinTransaction } from "./within.js";

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
  private endedAs: RunRecord | undefined;
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
  async renew(): Promise<void> {
    await this.fenced(async () => {
      const expiresAt = this.store.clock() + this.leaseMs;
      await this.store.renewLease(this.runId, this.token, expiresAt);
      this.expires = expiresAt;
    });
  }

  /** The current record, after writing the deferred usage and checking the lease is still held. */
  async check(): Promise<RunRecord> {
    return this.fenced(() => this.withDeferred((usage) => this.store.checkLease(this.runId, this.token, usage)));
  }

  /** Throws LeaseLostError unless the lease is still held; one indexed read, no record built. */
  async assertHeld(): Promise<void> {
    await this.fenced(() => this.store.assertHeld(this.runId, this.token));
  }

  /**
   * {@link assertHeld} inside another module's open transaction (a side effect's intent in the ledger), so the
   * fence and that write commit together; synchronous on SQLite.
   */
  assertHeldIn(tx: StoreTransaction): void | Promise<void> {
    const lost = (error: unknown): never => {
      if (error instanceof LeaseLostError) this.abort(error);
      throw error;
    };
    let checked: void | Promise<void>;
    try {
      checked = this.store.fenceIn(tx, this.runId, this.token);
    } catch (error) {
      return lost(error);
    }
    return checked instanceof Promise ? checked.catch(lost) : checked;
  }

  /**
   * Fences a write of another module's open transaction (a checkpoint): LeaseLostError unless the lease is held,
   * and the deferred usage written in that transaction, so it commits with it. Returns (synchronously on SQLite)
   * the function that defers that usage again, for when the transaction does not commit.
   */
  fenceWrite(tx: StoreTransaction): ((error?: unknown) => void) | Promise<(error?: unknown) => void> {
    const pending = this.takeDeferred();
    // On PostgreSQL the fence may travel with the write (tx.withWrite): its refusal then comes as the write's error.
    const undo = (error?: unknown) => {
      if (pending !== undefined) this.deferred = sumUsage(this.deferred, pending);
      if (error instanceof LeaseLostError) this.abort(error);
    };
    const refused = (error: unknown): never => {
      undo(error);
      throw error;
    };
    let written: void | Promise<void>;
    try {
      written = this.store.fenceIn(tx, this.runId, this.token, pending);
    } catch (error) {
      return refused(error);
    }
    return written instanceof Promise ? written.then(() => undo, refused) : undo;
  }

  /** A fenced status change as the lease holder (ends the lease unless `to` is RUNNING). */
  async transition(to: Exclude<RunStatus, "RUNNING">, options: Omit<TransitionOptions, "fence" | "usage" | "endBackoff"> = {}): Promise<RunRecord> {
    // An outcome is written from RUNNING: a backoff still shown (its end not recorded) ends first, in the same commit.
    const endBackoff = this.backingOff ? "backoff ended" : undefined;
    const run = await this.fenced(() => this.withDeferred((usage) =>
      this.store.transition(this.runId, to, { actor: this.workerId, ...options, fence: this.token, usage, endBackoff })));
    this.backingOff = false;
    this.endedAs = run;
    return run;
  }

  /** The run as this lease's own transition wrote it (the lease ended there); undefined while it has not. */
  get ended(): RunRecord | undefined {
    return this.endedAs;
  }

  /** Shows the run RETRYING while a tool backs off here; the lease stays held, so no other worker claims it. */
  async startBackoff(reason: string): Promise<RunRecord> {
    this.backingOff = true;
    return this.fenced(() => this.store.setBackoff(this.runId, this.token, "RETRYING", { actor: this.workerId, reason }));
  }

  /** Back to RUNNING (same lease, token and attempt) when the next attempt starts. */
  async endBackoff(reason: string): Promise<RunRecord> {
    this.backingOff = false;
    return this.fenced(() => this.store.setBackoff(this.runId, this.token, "RUNNING", { actor: this.workerId, reason }));
  }

  /** Adds to the usage counters; returns the new totals. */
  async addUsage(delta: Partial<RunUsage>): Promise<RunUsage> {
    return this.fenced(() => this.withDeferred((usage) => this.store.addUsage(this.runId, this.token, sumUsage(usage, delta))));
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

  /** Hands the deferred usage to `write`; if that fails, it is deferred again. */
  private async withDeferred<T>(write: (usage: Partial<RunUsage> | undefined) => Promise<T>): Promise<T> {
    const pending = this.takeDeferred();
    try {
      return await write(pending);
    } catch (error) {
      if (pending !== undefined) this.deferred = sumUsage(this.deferred, pending);
      throw error;
    }
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
  async retry(options: { delayMs?: number; errorCode?: string; errorMessage?: string; reason?: string; refundAttempt?: boolean; within?: WithinTransaction } = {}): Promise<RunRecord> {
    const run = await this.check();
    if (options.refundAttempt !== true && run.attempts >= run.maxAttempts) {
      return this.transition("FAILED", { errorCode: "ATTEMPTS_EXHAUSTED", errorMessage: options.errorMessage ?? options.errorCode, reason: options.reason, within: options.within });
    }
    const { delayMs, ...rest } = options;
    return this.transition("RETRYING", { ...rest, availableAt: this.store.clock() + (delayMs ?? 0) });
  }

  /** Gives the run back unfinished (worker shutting down): RETRYING, claimable at once; the attempt is not counted. */
  release(reason = "released by worker"): Promise<RunRecord> {
    return this.transition("RETRYING", { reason, refundAttempt: true });
  }

  /** Aborts the signal (used by the worker on shutdown); does not write. */
  abort(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  private async fenced<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
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
export function recoverExpiredLeases(store: SqliteRuns, now: number): RunRecord[] {
  const expired = store
    // A held RETRYING run (in-process backoff) whose holder stopped heartbeating has lost its lease too.
    .stmt("SELECT run_id FROM runs WHERE status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL AND lease_expires_at <= ? ORDER BY run_id")
    .all(now) as { run_id: string }[];
  return expired.map(({ run_id }) => {
    const run = store.get(run_id);
    const recovery = leaseRecovery(run, now);
    if (recovery === "drop-lease") {
      store
        .stmt("UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL, available_at = ?, error_code = 'LEASE_LOST', updated_at = ? WHERE run_id = ? AND status = 'RETRYING'")
        .run(now, now, run_id);
      return store.get(run_id);
    }
    return store.applyTransition(run, recovery.to, recovery.options);
  });
}

/**
 * What recovering `run`'s expired lease does, on every backend: FAILED (ATTEMPTS_EXHAUSTED) once it used all its
 * attempts, else RETRYING (LEASE_LOST); a run already RETRYING (a held backoff) only loses the lease ("drop-lease":
 * no status change, so no event; the token stays for the next claim to bump).
 */
export function leaseRecovery(run: RunRecord, now: number): "drop-lease" | { to: "FAILED" | "RETRYING"; options: TransitionOptions } {
  const owner = run.lease?.owner ?? "unknown worker";
  if (run.status === "RETRYING" && run.attempts < run.maxAttempts) return "drop-lease";
  if (run.attempts >= run.maxAttempts) {
    return {
      to: "FAILED",
      options: { errorCode: "ATTEMPTS_EXHAUSTED", errorMessage: `lease of ${owner} expired on attempt ${run.attempts} of ${run.maxAttempts}`, reason: "lease expired" },
    };
  }
  return { to: "RETRYING", options: { errorCode: "LEASE_LOST", reason: `lease of ${owner} expired`, availableAt: now } };
}

/** The transition that expires a run past its deadline (DEADLINE_EXCEEDED), on every backend. */
export const DEADLINE_EXPIRY: TransitionOptions = { errorCode: "DEADLINE_EXCEEDED", reason: "deadline passed" };

/** Moves every unfinished run whose deadline has passed to EXPIRED (DEADLINE_EXCEEDED). */
export function expireOverdueRuns(store: SqliteRuns, now: number): RunRecord[] {
  const overdue = store
    .stmt(
      // Same terms as the partial index runs_by_open_deadline, so finished runs are never scanned.
      `SELECT run_id FROM runs WHERE deadline_at IS NOT NULL AND deadline_at <= ?
         AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED')`,
    )
    .all(now) as { run_id: string }[];
  return overdue.map(({ run_id }) =>
    store.applyTransition(store.get(run_id), "EXPIRED", DEADLINE_EXPIRY),
  );
}
