/**
 * Executes a run this process has claimed: keeps its lease alive, runs the
 * graph, records the outcome under the fencing token and the lifecycle
 * changes in the trace. A lost lease (cancel, takeover) stops quietly.
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

/** Runs a claimed run to its next resting status and returns the stored record. */
export async function executeClaimed(deps: ClaimDeps, run: RunRecord, lease: RunLease): Promise<RunRecord> {
  const recorder = deps.recorder(run);
  recorder.recordStateChange(lastStatusBefore(deps, run), "RUNNING");
  deps.emit({ type: "status", runId: run.runId, status: "RUNNING" });
  const heartbeat = setInterval(() => {
    try {
      lease.renew();
    } catch (error) {
      lease.abort(error);
    }
  }, Math.max(20, Math.floor(deps.leaseMs / 3)));
  heartbeat.unref();
  let outcome: RunOutcome;
  try {
    outcome = await executeRun(deps, run, lease);
  } catch (error) {
    if (error instanceof LeaseLostError || lease.signal.aborted) {
      clearInterval(heartbeat);
      recorder.flush();
      return deps.runs.get(run.runId);
    }
    outcome = failure(error);
  } finally {
    clearInterval(heartbeat);
  }
  try {
    const after = applyOutcome(lease, outcome);
    recorder.recordStateChange("RUNNING", after.status, { reason: after.errorMessage ?? undefined });
    deps.emit({ type: "status", runId: run.runId, status: after.status });
    return after;
  } catch (error) {
    if (error instanceof LeaseLostError) return deps.runs.get(run.runId);
    throw error;
  } finally {
    recorder.flush();
  }
}

function failure(error: unknown): RunOutcome {
  if (error instanceof AgentrtError) return { status: "FAILED", errorCode: error.code, errorMessage: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { status: "FAILED", errorCode: "INTERNAL", errorMessage: message.split("\n")[0] ?? message };
}

function lastStatusBefore(deps: ClaimDeps, run: RunRecord): string {
  const events = deps.runs.events(run.runId);
  // The claim's own event is the last one; the status before it is where the run came from.
  return events.at(-1)?.from ?? "QUEUED";
}
