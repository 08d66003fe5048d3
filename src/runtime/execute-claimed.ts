/**
 * Executes a run this process has claimed and records where it stopped:
 * the outcome under the fencing token and the lifecycle changes in the trace.
 * Leases and heartbeats are the worker's job (src/runs/execute-claimed.ts).
 * @module
 */
import { AgentrtError } from "../errors.js";
import { LeaseLostError, applyOutcome, type RunLease, type RunOutcome, type RunRecord, type RunStore } from "../runs/index.js";
import { executeRun, type ExecutionDeps } from "./execute-run.js";

/** What executing a claimed run needs. */
export interface ClaimDeps extends ExecutionDeps {
  runs: RunStore;
  leaseMs: number;
  workerId: string;
}

/**
 * Runs the graph of a claimed run and records its outcome itself (so the
 * trace sees the final transition); returns nothing, as the worker expects of
 * an `execute` that ended the lease. A stop or lost lease is rethrown for the
 * worker to handle.
 */
export async function executeAndRecord(deps: ClaimDeps, run: RunRecord, lease: RunLease): Promise<void> {
  const recorder = deps.recorder(run);
  recorder.recordStateChange(deps.runs.events(run.runId).at(-1)?.from ?? "QUEUED", "RUNNING");
  deps.emit({ type: "status", runId: run.runId, status: "RUNNING" });
  let outcome: RunOutcome;
  try {
    outcome = await executeRun(deps, run, lease);
  } catch (error) {
    if (error instanceof LeaseLostError || lease.signal.aborted) throw error;
    outcome = failure(error);
  }
  try {
    const after = applyOutcome(lease, outcome);
    const waitingFor = outcome.status === "WAITING_APPROVAL" ? pendingTools(outcome.pending) : undefined;
    recorder.recordStateChange("RUNNING", after.status, {
      reason: after.errorMessage ?? undefined,
      ...(waitingFor === undefined ? {} : { waitName: `approval_wait ${waitingFor}` }),
    });
    deps.emit({ type: "status", runId: run.runId, status: after.status });
  } finally {
    recorder.flush();
  }
}

function pendingTools(pending: unknown): string {
  return Array.isArray(pending) ? pending.map((p: { tool?: string }) => p.tool ?? "?").join(", ") : "";
}

function failure(error: unknown): RunOutcome {
  if (error instanceof AgentrtError) return { status: "FAILED", errorCode: error.code, errorMessage: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { status: "FAILED", errorCode: "INTERNAL", errorMessage: message.split("\n")[0] ?? message };
}
