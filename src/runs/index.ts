/**
 * Durable runs: records and their event log, the lifecycle, leases, the
 * scheduler and a generic worker. The runtime builds on these.
 * @module
 */
export {
  RUN_STATUSES,
  RUN_TRANSITIONS,
  CLAIMABLE_STATUSES,
  canTransition,
  assertTransition,
  isTerminal,
  isWaiting,
  isRunStatus,
} from "./lifecycle.js";
export type { RunStatus, TerminalRunStatus, WaitingRunStatus } from "./lifecycle.js";
export { IllegalTransitionError, UnknownRunError, LeaseLostError } from "./errors.js";
export type { LeaseLossReason } from "./errors.js";
export { newRunId, newSortableId, defaultThreadId } from "./ids.js";
export type { RunRecord, RunEvent, RunUsage, RunBudget, RunLeaseInfo } from "./run-record.js";
export { exhaustedBudget, passedDeadline, validateBudget, describeExhausted, BudgetExceededError, BUDGET_ERROR_CODES } from "./budget.js";
export type { ExhaustedLimit } from "./budget.js";
export { SqliteRunStore } from "./sqlite-run-store.js";
export { SqliteRuns } from "./sqlite-runs.js";
export { PostgresRunStore } from "./postgres-run-store.js";
export type { RunStore, ClaimCaps, ClaimRequest, ClaimRunRequest, LeaseState } from "./run-store.js";
export { validateGraphConfig, DEFAULT_RECURSION_LIMIT, FENCING_TOKEN_KEY } from "./graph-config.js";
export type { RunGraphConfig } from "./graph-config.js";
export { assertFence } from "./fence.js";
export type { RunStoreOptions, CreateRunInput, RunFilter, CancelOptions } from "./run-store.js";
export type { TransitionOptions } from "./transition-write.js";
export type { TransactionHooks, WithinTransaction } from "./within.js";
export { RunLease, defaultLeaseMs, recoverExpiredLeases, expireOverdueRuns } from "./lease.js";
export { Scheduler } from "./scheduler.js";
export type { SchedulerOptions, ClaimOptions, ClaimedRun } from "./scheduler.js";
export { RunChangedError, assertUnchanged } from "./unchanged.js";
export type { ExpectedRunState } from "./unchanged.js";
export { applyOutcome, outcomeOfError } from "./outcome.js";
export type { RunOutcome } from "./outcome.js";
export { executeClaimed, WorkerStoppingError } from "./execute-claimed.js";
export { watchLease, LEASE_WATCH_MS } from "./lease-watch.js";
export type { ExecuteRun, ExecuteClaimedOptions, ExecutionResult } from "./execute-claimed.js";
export { createWorker } from "./worker.js";
export type { Worker, WorkerOptions, WorkerStats } from "./worker.js";
export { RUNS_SCHEMA } from "./schema.js";
export { RUNS_PG_SCHEMA } from "./postgres-schema.js";
export { WAIT_EXPIRED, defaultWaitTtlMs, expireOverdueWaits, expireWaitIfDue, hasOverdueWaits } from "./wait-expiry.js";
export { storageBackoffMs, storageRetryOutcome, connectionRetryOutcome, writeWhileStorageRefuses } from "./storage-retry.js";
export type { RunSignal, RunSignalListener, RunSignals } from "./run-signals.js";
export { PostgresRunSignals } from "./postgres-run-signals.js";
export { IDEMPOTENCY_TTL_MS, IdempotencyKeyTakenError, validateIdempotencyKey } from "./idempotency.js";
export type { IdempotentRun, RunIdempotency } from "./idempotency.js";
export type { WorkerLiveness } from "./worker-liveness.js";
export { PostgresWorkerLiveness, RUN_WORKERS_PG_SCHEMA } from "./postgres-worker-liveness.js";
