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
import { syncStateChanges } from "./state-changes.js";
import { outcomeTrace, startRecording } from "./trace-within.js";

/** What executing a claimed run needs. */
export interface ClaimDeps extends ExecutionDeps {
  runs: RunStore;
  trace: TraceStore;
  leaseMs: number;
  workerId: string;
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
  // On SQLite the outcome's transition in the trace (the root's end) and the run's pending spans are written in the
  // outcome's own commit: a refused outcome (lost lease) or a rolled-back one writes none of them and leaves the
  // recorder as it was. On PostgreSQL they follow the outcome (fenced): a crash between the two leaves a waiting or
  // retrying run's trace to be rebuilt from run_events (syncStateChanges) at its next start; a finished run's is not.
  const traced = outcomeTrace(recorder);
  try {
    const after = await writeWhileStorageRefuses(lease, () => applyOutcome(lease, outcome, traced.within),
      (failure) => announce(failure.code as StorageFailureCode, failure.message));
    if (!traced.recorded) await syncStateChanges(deps.runs, recorder, after);
    // The final values go with the rest (a waiter answers with them instead of reading the checkpoint again).
    deps.emit({ type: "status", runId: run.runId, status: after.status, ...(values === undefined || !isTerminal(after.status) ? {} : { values }) });
  } finally {
    await recorder.flush();
  }
}
