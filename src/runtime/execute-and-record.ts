/**
 * Executes a run this process has claimed and records where it stopped:
 * the outcome under the fencing token and the lifecycle changes in the trace.
 * Leases and heartbeats are the worker's job (src/runs/execute-claimed.ts).
 * @module
 */
import { isStorageFailureCode, type StorageFailureCode } from "../db/index.js";
import {
  LeaseLostError, applyOutcome, isTerminal, outcomeOfError, writeWhileStorageRefuses,
  type RunLease, type RunRecord, type RunStore,
} from "../runs/index.js";
import type { TraceRecorder, TraceStore } from "../trace/index.js";
import { executeRun, type ExecutedRun, type ExecutionDeps } from "./execute-run.js";
import { readStateChanges, recordStateChanges, syncStateChanges } from "./state-changes.js";

/** What executing a claimed run needs. */
export interface ClaimDeps extends ExecutionDeps {
  runs: RunStore;
  trace: TraceStore;
  leaseMs: number;
  workerId: string;
}

/**
 * The trace's start of a claimed run (root span, the claim's transition), written after the claim's commit:
 * a crash between the two loses only trace rows, which the next start rebuilds from run_events. The event log is
 * read first, so on SQLite the root and the transitions commit together (RecorderOptions.init).
 */
export async function startRecording(deps: ClaimDeps, run: RunRecord): Promise<TraceRecorder> {
  const changes = await readStateChanges(deps.runs, run);
  const attached = await deps.recorder(run, (recorder) => recordStateChanges(recorder, changes));
  await attached.flush();
  return attached;
}

/**
 * Runs the graph of a claimed run and records its outcome itself (so the
 * trace sees the final transition); returns nothing, as the worker expects of
 * an `execute` that ended the lease. A stop or lost lease is rethrown for the
 * worker to handle. `started`: the recorder when the claim already wrote the trace's start.
 * A full or failing disk makes the run RETRYING (see storage-retry.ts) and is announced at once with a
 * `storage_failed` event, before the write that records it, which may wait for room.
 */
export async function executeAndRecord(deps: ClaimDeps, run: RunRecord, lease: RunLease, started?: TraceRecorder): Promise<void> {
  const recorder = started ?? (await startRecording(deps, run));
  deps.emit({ type: "status", runId: run.runId, status: "RUNNING" });
  let executed: ExecutedRun;
  try {
    // Started at this claim, under this lease: no other process writes the run's spans meanwhile, so no reload.
    executed = await executeRun(deps, run, lease, recorder);
  } catch (error) {
    if (error instanceof LeaseLostError || lease.signal.aborted) {
      await recorder.flush();
      throw error;
    }
    executed = { outcome: outcomeOfError(error, run.attempts) };
  }
  const { outcome, values } = executed;
  let announced = false;
  const announce = (code: StorageFailureCode, message: string): void => {
    if (announced) return;
    announced = true;
    deps.emit({ type: "storage_failed", runId: run.runId, fencingToken: lease.token, code, message });
  };
  if (outcome.status === "RETRYING" && isStorageFailureCode(outcome.errorCode)) announce(outcome.errorCode, outcome.errorMessage ?? "");
  try {
    // The outcome first (fenced), then its transition in the trace and the run's pending spans: a refused
    // outcome (lost lease) writes no spans of it. A crash between the two leaves a waiting or retrying run's
    // trace to be rebuilt from run_events (syncStateChanges) at its next start; a finished run's is not (see docs).
    const after = await writeWhileStorageRefuses(lease, () => applyOutcome(lease, outcome),
      (failure) => announce(failure.code as StorageFailureCode, failure.message));
    await syncStateChanges(deps.runs, recorder, after);
    // The final values go with the rest (a waiter answers with them instead of reading the checkpoint again).
    deps.emit({ type: "status", runId: run.runId, status: after.status, ...(values === undefined || !isTerminal(after.status) ? {} : { values }) });
  } finally {
    await recorder.flush();
  }
}
