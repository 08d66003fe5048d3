/**
 * The scheduler: claims runnable runs for workers by priority then age, within a global cap and per-user caps,
 * through the run store's claim methods (each one transaction, so several processes sharing the database never
 * claim the same run), and hands each claim out with its lease. Only the oldest unfinished run of a thread is
 * claimable: runs of one thread share its checkpoints. With `tenantWeights`, claims go by fair shares among
 * tenants instead of priority across all of them (fair-shares.ts).
 * @module
 */
import { UserInputError } from "../errors.js";
import { assertWeights } from "./fair-shares.js";
import { RunLease } from "./lease.js";
import type { RunRecord } from "./run-record.js";
import type { ClaimCaps, CreateRunInput, RunStore } from "./run-store.js";
import type { ExpectedRunState } from "./unchanged.js";
import type { WithinTransaction } from "./within.js";

/** Caps the scheduler honours; counted over RUNNING runs of the whole database, every process. */
export interface SchedulerOptions {
  /** Most runs RUNNING at once across all workers. @default Infinity */
  maxRunning?: number;
  /** Most runs RUNNING at once for one user. @default Infinity */
  maxRunningPerUser?: number;
  /** Per-user overrides of `maxRunningPerUser`. @default {} */
  userLimits?: Record<string, number>;
  /**
   * Fair shares among tenants (a run's tenant is its user): each tenant's weight, 1 for one not listed; `{}` for
   * equal shares. Claims then go by stride scheduling (fair-shares.ts): priority orders runs within a tenant, and
   * each backlogged tenant gets claims in proportion to its weight. @default none: priority, then age, across all
   */
  tenantWeights?: Record<string, number>;
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

/** Claims runs for workers. */
export class Scheduler {
  readonly store: RunStore;
  private readonly caps: ClaimCaps;

  constructor(store: RunStore, options: SchedulerOptions = {}) {
    this.store = store;
    this.caps = {
      maxRunning: options.maxRunning ?? Infinity,
      maxRunningPerUser: options.maxRunningPerUser ?? Infinity,
      userLimits: options.userLimits ?? {},
      ...(options.tenantWeights === undefined ? {} : { shares: { weights: { ...options.tenantWeights } } }),
    };
    assertWeights(options.tenantWeights ?? {});
    for (const [name, cap] of Object.entries({ maxRunning: this.caps.maxRunning, maxRunningPerUser: this.caps.maxRunningPerUser, ...this.caps.userLimits })) {
      if (!(cap >= 1)) throw new UserInputError("BAD_INPUT", `scheduler cap ${name} must be at least 1 (got ${cap})`);
    }
  }

  /**
   * Claims the next runnable run (QUEUED or due RETRYING; highest priority,
   * then oldest) whose user is under its cap; undefined when none is or the
   * global cap is reached. Expired leases and deadlines are swept first.
   */
  async claimNext(options: ClaimOptions): Promise<ClaimedRun | undefined> {
    return this.leased(await this.store.claimNext({ ...options, caps: this.caps }), options);
  }

  /**
   * Claims one given run now: QUEUED, RETRYING (even before its delay) or
   * WAITING_* (resumed straight into RUNNING, with `resume` stored). Returns
   * undefined when it is RUNNING elsewhere, a cap is reached or an older run
   * of its thread has not finished; throws ILLEGAL_TRANSITION for a finished run,
   * and RUN_NOT_WAITING (nothing changed) when `expect` no longer matches the run.
   */
  async claimRun(runId: string, options: ClaimOptions & { resume?: unknown; expect?: ExpectedRunState }): Promise<ClaimedRun | undefined> {
    return this.leased(await this.store.claimRun(runId, { ...options, caps: this.caps }), options);
  }

  /**
   * Creates a run and claims it in one commit; `claimed` is undefined when a cap or an older run of its thread holds
   * it back. `within`: see RunStore.createAndClaim.
   */
  async createAndClaim(input: CreateRunInput, options: ClaimOptions, within?: WithinTransaction): Promise<{ run: RunRecord; claimed: ClaimedRun | undefined }> {
    const { run, claimed } = await this.store.createAndClaim(input, { ...options, caps: this.caps }, within);
    return { run, claimed: this.leased(claimed, options) };
  }

  /**
   * True while any run is RUNNING (by any worker), or QUEUED or RETRYING and not held
   * back by a waiting run of its thread: work may still arrive.
   */
  hasPendingWork(): Promise<boolean> {
    return this.store.hasPendingWork();
  }

  /** Runs the expiry sweeps on their own (claims run them too); returns the runs moved. */
  sweepNow(): Promise<RunRecord[]> {
    return this.store.sweep();
  }

  private leased(run: RunRecord | undefined, options: ClaimOptions): ClaimedRun | undefined {
    return run === undefined ? undefined : { run, lease: new RunLease(this.store, run, options.leaseMs) };
  }
}
