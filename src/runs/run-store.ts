/**
 * The runs module's storage, as one interface with async methods: every atomic unit (create and claim, a
 * claim, a status change and its event, a fenced lease write, the sweeps) is one method, which an
 * implementation runs in one transaction. `SqliteRunStore` and `PostgresRunStore` implement it.
 * @module
 */
import type { StoreTransaction } from "../db/index.js";
import type { IdempotentRun, RunIdempotency } from "./idempotency.js";
import type { RunStatus } from "./lifecycle.js";
import type { RunEvent, RunRecord, RunUsage } from "./run-record.js";
import type { RunGraphConfig } from "./graph-config.js";
import type { RunBudget } from "./run-record.js";
import type { TransitionOptions } from "./transition-write.js";
import type { ExpectedRunState } from "./unchanged.js";
import type { WithinTransaction } from "./within.js";
import type { FairShares } from "./fair-shares.js";

/** Options of `SqliteRunStore.open` and `PostgresRunStore.open`. */
export interface RunStoreOptions {
  /** Source of "now" in epoch ms; tests may pass a fake clock. @default Date.now */
  clock?: () => number;
}

/** What {@link SqliteRuns.create} needs; everything but the graph has a default. */
export interface CreateRunInput {
  /** The graph the run executes. */
  graphId: string;
  /** The user the run acts for; per-user caps key off it. @default "anonymous" */
  userId?: string;
  /** @default a new sortable `run_…` id */
  runId?: string;
  /** @default `thread_` + the run id's body */
  threadId?: string;
  /** Higher is claimed first. @default 0 */
  priority?: number;
  /** Absolute deadline (epoch ms); past it the run is EXPIRED. @default none */
  deadlineAt?: number;
  /** Longest an approval or input wait may last before the run is EXPIRED (WAIT_EXPIRED). @default none (waits forever) */
  waitTtlMs?: number;
  /** Claims allowed before a lost lease fails the run. @default 3 */
  maxAttempts?: number;
  /** @default {} (unlimited) */
  budget?: RunBudget;
  /** The run's input, JSON-serialisable. @default null */
  input?: unknown;
  /** Free-form JSON metadata. @default {} */
  metadata?: Record<string, unknown>;
  /** Extra `configurable` keys and the recursion limit the graph is invoked with. @default none */
  config?: RunGraphConfig;
  /** Not claimed before this time. @default now */
  availableAt?: number;
  /**
   * The caller's idempotency key, stored with the run in its transaction; a live key of the same user already
   * naming a run refuses the create (IdempotencyKeyTakenError, with that run). @default none
   */
  idempotency?: RunIdempotency;
}

/** Which runs {@link SqliteRuns.list} returns; fields combine with AND. */
export interface RunFilter {
  status?: RunStatus | readonly RunStatus[];
  userId?: string;
  graphId?: string;
  threadId?: string;
  /** "claim": priority, then oldest first; "newest": most recently created first. @default "claim" */
  order?: "claim" | "newest";
  /** @default 1000 */
  limit?: number;
}

/** The caps a claim honours, counted over the runs holding a lease (RUNNING, or RETRYING backing off in-process). */
export interface ClaimCaps {
  maxRunning: number;
  maxRunningPerUser: number;
  userLimits: Record<string, number>;
  /** Claim by fair shares among tenants (fair-shares.ts) rather than by priority across all of them. @default none */
  shares?: FairShares;
}

/** Who claims, for how long, within which caps. */
export interface ClaimRequest {
  workerId: string;
  leaseMs: number;
  caps: ClaimCaps;
}

/** A claim of one given run: optionally resumed with `resume`, only while it is still as `expect`. */
export interface ClaimRunRequest extends ClaimRequest {
  resume?: unknown;
  expect?: ExpectedRunState;
}

/** Who cancels a run and why; `expect`: only while the run is still in the state the caller checked. */
export interface CancelOptions {
  actor?: string;
  reason?: string;
  expect?: ExpectedRunState;
}

/** What {@link RunStore.leaseStates} reads of a run: enough to tell whether a lease is still held. */
export interface LeaseState {
  runId: string;
  status: RunStatus;
  fencingToken: number;
}


/** Durable run records, their event log, claims and leases; every method is one atomic unit. */
export interface RunStore {
  /** Source of "now" (epoch ms) the runs are stamped with. */
  readonly clock: () => number;
  /** True while every connection is lent out with callers waiting (PostgreSQL's pool): a worker claims no more. @default never */
  readonly saturated?: boolean;
  /** Writes a QUEUED run and its first event; BAD_INPUT for a taken run id, non-integer numbers or a bad budget. */
  create(input: CreateRunInput): Promise<RunRecord>;
  /**
   * {@link create}, then {@link claimRun} of that run, in one commit; `claimed` undefined when a cap or its thread
   * holds it back. `within`: called with the claimed run inside that commit (SQLite only; see WithinTransaction).
   */
  createAndClaim(input: CreateRunInput, claim: ClaimRequest, within?: WithinTransaction): Promise<{ run: RunRecord; claimed: RunRecord | undefined }>;
  /** The run `userId`'s idempotency key names, while the key lives (IDEMPOTENCY_TTL_MS); else undefined. */
  findIdempotent(userId: string, key: string): Promise<IdempotentRun | undefined>;
  /** The run, or UnknownRunError. */
  get(runId: string): Promise<RunRecord>;
  /** The run, or undefined. */
  find(runId: string): Promise<RunRecord | undefined>;
  /** Runs matching the filter, in claim order (priority, then age) unless `order: "newest"`. */
  list(filter?: RunFilter): Promise<RunRecord[]>;
  /** The newest run (by creation) of each of `threadIds` that has one, in one statement whatever their number. */
  latestOfThreads(threadIds: readonly string[]): Promise<Map<string, RunRecord>>;
  /** The run's status changes, oldest first. */
  events(runId: string): Promise<RunEvent[]>;
  /** Status changes of every run (or one) with `eventId > afterEventId`, oldest first: lets another process tail the log. */
  eventsAfter(afterEventId: number, options?: { runId?: string; limit?: number }): Promise<RunEvent[]>;
  /**
   * Moves a run to `to` and appends the event, atomically. With `fence` the write succeeds only while the
   * caller's lease is current (else LeaseLostError), after writing `usage` and ending a backoff (`endBackoff`)
   * in the same transaction; without it, leaving RUNNING revokes the holder's lease. Never to RUNNING (claims do that).
   */
  transition(runId: string, to: RunStatus, options?: TransitionOptions): Promise<RunRecord>;
  /**
   * Cancels a run that is not finished (else RUN_FINISHED); done side effects stay done. With `expect` only while it
   * is still so, checked in the cancel's own write (else RUN_NOT_WAITING, nothing changed).
   */
  cancel(runId: string, options?: CancelOptions): Promise<RunRecord>;
  /**
   * Hands a waiting run back to the queue with what it resumes with; with `expect` only while it is still so
   * (else RUN_NOT_WAITING). `availableAt`: not claimed by a worker before then (a claim by id is).
   */
  resume(runId: string, options?: { resume?: unknown; actor?: string; reason?: string; expect?: ExpectedRunState; availableAt?: number }): Promise<RunRecord>;
  /** Adds to the run's usage counters as its lease holder (also while it backs off RETRYING); returns the totals. */
  addUsage(runId: string, fence: number, delta: Partial<RunUsage>): Promise<RunUsage>;
  /** Writes `usage` (if any) as the lease holder and returns the record; LeaseLostError unless the lease is held. */
  checkLease(runId: string, fence: number, usage?: Partial<RunUsage>): Promise<RunRecord>;
  /** LeaseLostError unless `fence` still holds the run's lease. */
  assertHeld(runId: string, fence: number): Promise<void>;
  /**
   * Inside another module's open transaction `tx` (a checkpoint's, a ledger intent's): LeaseLostError unless `fence`
   * holds the run's lease, then `usage` written in `tx`, so both commit or roll back with that write. Synchronous on
   * SQLite (whose transactions cannot span an await); a store refuses a transaction of the other backend (INTERNAL).
   */
  fenceIn(tx: StoreTransaction, runId: string, fence: number, usage?: Partial<RunUsage>): void | Promise<void>;
  /** Heartbeat: the lease now runs until `expiresAt`; LeaseLostError if it is gone. */
  renewLease(runId: string, fence: number, expiresAt: number): Promise<void>;
  /** Moves the holder's run between RUNNING and RETRYING keeping the lease (a no-op when already there). */
  setBackoff(runId: string, fence: number, to: "RETRYING" | "RUNNING", options: { actor: string; reason: string }): Promise<RunRecord>;
  /** Status and token of those of `runIds` that exist, in one read. */
  leaseStates(runIds: readonly string[]): Promise<LeaseState[]>;
  /** Sweeps, then claims the next runnable run (QUEUED or due RETRYING; priority, age) within the caps. */
  claimNext(claim: ClaimRequest): Promise<RunRecord | undefined>;
  /**
   * Sweeps, then claims one given run (QUEUED, RETRYING, or WAITING_* resumed with `resume`); undefined when it
   * runs elsewhere, a cap is reached or an older run of its thread is unfinished; ILLEGAL_TRANSITION when finished.
   */
  claimRun(runId: string, claim: ClaimRunRequest): Promise<RunRecord | undefined>;
  /** True while a run is RUNNING, or QUEUED/RETRYING and not held back by an older run of its thread. */
  hasPendingWork(): Promise<boolean>;
  /** Expires overdue deadlines and waits and recovers expired leases; returns the runs moved. */
  sweep(): Promise<RunRecord[]>;
  /** Expires every wait past its TTL (taking the write lock only when one is); returns the runs moved. */
  expireOverdueWaits(): Promise<RunRecord[]>;
  /** The run, first moved to EXPIRED if its wait has outlived its TTL (UNKNOWN_RUN for an unknown id). */
  expireWaitIfDue(runId: string): Promise<RunRecord>;
  /** A value that changes whenever runs change (any process, this one included); undefined once closed. */
  changeStamp(): Promise<string | undefined>;
  /** A number that changes at least whenever another connection has committed a run change; undefined once closed. */
  dataVersion(): Promise<number | undefined>;
  /** DB_SCHEMA_TOO_NEW once a newer agentrt has migrated the runs tables under this process. */
  assertSchemaCurrent(): Promise<void>;
}

