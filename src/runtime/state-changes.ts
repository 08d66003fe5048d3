/**
 * Lifecycle transitions in the trace, copied from the run's event log — the
 * source of truth — so transitions made elsewhere (a lease sweep, another
 * process, a queued approval) show up too, each once, at the time it happened.
 * @module
 */
import type { RunRecord, RunStore } from "../runs/index.js";
import type { TraceRecorder } from "../trace/index.js";

/** Records every transition of `run` that the trace does not have yet (the recorder knows how many it has). */
export async function syncStateChanges(runs: RunStore, recorder: TraceRecorder, run: RunRecord): Promise<void> {
  const transitions = (await runs.events(run.runId)).filter((e) => e.from !== null);
  const recorded = recorder.countStateChanges();
  for (const event of transitions.slice(recorded)) {
    const waitName = event.to === "WAITING_APPROVAL" ? `approval_wait ${pendingTools((await runs.get(run.runId)).pending)}` : undefined;
    recorder.recordStateChange(event.from ?? "QUEUED", event.to, {
      at: event.at,
      ...(event.reason === null ? {} : { reason: event.reason }),
      ...(waitName === undefined ? {} : { waitName }),
    });
  }
}

function pendingTools(pending: unknown): string {
  return Array.isArray(pending) ? pending.map((p: { tool?: string }) => p.tool ?? "?").join(", ") : "";
}
