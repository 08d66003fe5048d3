/**
 * Lifecycle transitions in the trace, copied from the run's event log — the
 * source of truth — so transitions made elsewhere (a lease sweep, another
 * process, a queued approval) show up too, each once, at the time it happened.
 * @module
 */
import type { RunEvent, RunRecord, RunStore } from "../runs/index.js";
import type { TraceRecorder } from "../trace/index.js";

/**
 * Records every transition of `run` that the trace does not have yet (the recorder knows how many it has). The
 * missing ones and the spans pending before them are written together, in one write.
 */
export async function syncStateChanges(runs: RunStore, recorder: TraceRecorder, run: RunRecord): Promise<void> {
  const missing = unrecorded(recorder, await transitionsOf(runs, run));
  if (missing.length === 0) return;
  recordMissing(recorder, missing, await waitNameOf(runs, run, missing));
}

/** The run's transitions from its event log (its creation left out). */
async function transitionsOf(runs: RunStore, run: RunRecord): Promise<RunEvent[]> {
  return (await runs.events(run.runId)).filter((e) => e.from !== null);
}

/** The transitions past those the trace has. */
function unrecorded(recorder: TraceRecorder, transitions: readonly RunEvent[]): readonly RunEvent[] {
  // Counted inside a batch: the count includes the pending rows instead of writing them first (a commit of its own).
  return transitions.slice(recorder.batch(() => recorder.countStateChanges()));
}

/** The approval wait's span name when `events` enter one (the run's pending tools; a read of the run), else undefined. */
async function waitNameOf(runs: RunStore, run: RunRecord, events: readonly RunEvent[]): Promise<string | undefined> {
  return events.some((e) => e.to === "WAITING_APPROVAL") ? approvalWaitName((await runs.get(run.runId)).pending) : undefined;
}

/**
 * {@link StateChanges} from an event log read inside the transaction that wrote `run` (as written, so its pending
 * tools name an approval wait without another read): what {@link readStateChanges} reads through the store.
 */
export function stateChangesOf(run: RunRecord, events: readonly RunEvent[]): StateChanges {
  const transitions = events.filter((e) => e.from !== null);
  return { transitions, waitName: transitions.some((e) => e.to === "WAITING_APPROVAL") ? approvalWaitName(run.pending) : undefined };
}

/** The transitions of a run as its event log has them, for {@link recordStateChanges}. */
export interface StateChanges {
  transitions: RunEvent[];
  /** The name of an approval wait among them (the run's pending tools). */
  waitName: string | undefined;
}

/** Reads what {@link recordStateChanges} records (before the recorder exists: see startRecording). */
export async function readStateChanges(runs: RunStore, run: RunRecord): Promise<StateChanges> {
  const transitions = await transitionsOf(runs, run);
  return { transitions, waitName: await waitNameOf(runs, run, transitions) };
}

/** {@link syncStateChanges} with the event log read beforehand: synchronous, so a store can run it inside its own commit. */
export function recordStateChanges(recorder: TraceRecorder, { transitions, waitName }: StateChanges): void {
  recordMissing(recorder, unrecorded(recorder, transitions), waitName);
}

function recordMissing(recorder: TraceRecorder, missing: readonly RunEvent[], waitName: string | undefined): void {
  if (missing.length === 0) return;
  recorder.batch(() => {
    for (const event of missing) record(recorder, event, event.to === "WAITING_APPROVAL" ? waitName : undefined);
  });
}

function record(recorder: TraceRecorder, event: RunEvent, waitName: string | undefined): void {
  recorder.recordStateChange(event.from ?? "QUEUED", event.to, {
    at: event.at,
    ...(event.reason === null ? {} : { reason: event.reason }),
    ...(waitName === undefined ? {} : { waitName }),
  });
}

function approvalWaitName(pending: unknown): string {
  const tools = Array.isArray(pending) ? pending.map((p: { tool?: string }) => p.tool ?? "?").join(", ") : "";
  return `approval_wait ${tools}`;
}
