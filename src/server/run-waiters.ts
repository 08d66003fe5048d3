/**
 * The server's waiters on runs (runs.wait, join, streams, approvals): they wake when a run rests — through this
 * process's runtime events, the rest reports of its worker processes, PostgreSQL's signals or the shared poll
 * (see RunWakes) — and answer with the run, its final values when the execution that ended it sent them, or the
 * storage error that stalls it.
 * @module
 */
import { isTerminal, isWaiting, type RunRecord, type RunStatus } from "../runs/index.js";
import type { Runtime, RuntimeEvent } from "../runtime/index.js";
import { runtimeInternals } from "../runtime/internals.js";
import type { RunHandoff } from "./run-service.js";
import { RunWakes, type RestReport, type RunWakesOptions } from "./run-wakes.js";
import { StorageStalls, type StorageStall } from "./storage-stalls.js";

/**
 * How long a waiter that saw its run finish (another connection's commit) waits for the worker process that
 * finished it to report the rest with its final values, before reading the thread's state instead.
 */
const REST_GRACE_MS = 1000;

/** A run at rest, with its final state values when the execution that ended it sent them (see RuntimeEvent). */
export interface RestingRun {
  run: RunRecord;
  values?: Record<string, unknown>;
}

function withValues(run: RunRecord, values: Record<string, unknown> | undefined): RestingRun {
  return values === undefined ? { run } : { run, values };
}

/** True once a run waits for a person or has finished. */
export function isResting(status: RunStatus): boolean {
  return isTerminal(status) || isWaiting(status);
}

/** Who waits on which run, and what wakes them. */
export class RunWaiters {
  private readonly stalls: StorageStalls;
  private readonly wakes: RunWakes;

  /** `handoff`: the server's worker processes, whose rests are reported here with their final values. */
  constructor(private readonly runtime: Runtime, private readonly handoff?: RunHandoff, options: Pick<RunWakesOptions, "safetyPollMs"> = {}) {
    this.stalls = new StorageStalls(runtime.records);
    // On PostgreSQL, word of other processes' changes wakes waiters at once; the shared poll becomes a safety net.
    const signals = runtime.records.signals;
    const runs = runtimeInternals(runtime).runs;
    this.wakes = new RunWakes(() => runtime.records.dataVersion(), { ...options, states: (ids) => runs.leaseStates(ids), ...(signals === undefined ? {} : { signals }) });
  }

  /** Feed of the runtime's events: wakes whoever waits on a run that came to rest. */
  onRuntimeEvent(event: RuntimeEvent): void {
    // Any status written since (RETRYING for the stall itself, a new attempt) says more than the stall: forget it.
    if (event.type === "status") this.stalls.forget(event.runId);
    if (event.type === "status" && event.status !== "RUNNING") this.rested(event.runId, event.values);
    else if (event.type === "storage_failed") this.stalled(event.runId, event);
  }

  /**
   * The disk refused a write of the run's execution: its waiters answer now with the storage error instead of
   * waiting for a disk that may stay full; the run goes RETRYING (or is recovered after its lease) once there is room.
   */
  stalled(runId: string, stall: StorageStall): void {
    this.stalls.record(runId, stall);
    this.notify(runId);
  }

  /** Resolves when the run waits or has finished (or `signal` aborts). */
  async waitResting(runId: string, signal?: AbortSignal): Promise<RunRecord> {
    return (await this.waitSettled(runId, signal)).run;
  }

  /**
   * {@link waitResting}, plus the run's final state values when the rest that woke this waiter carried them
   * (the run ran to its end in this process or a worker process); undefined means: read the checkpoint.
   */
  async waitSettled(runId: string, signal?: AbortSignal): Promise<RestingRun> {
    let report: RestReport | undefined;
    const since = this.runtime.records.now();
    for (;;) {
      const run = await this.runtime.records.get(runId);
      await this.stalls.assertNotStalled(run, since);
      if (signal?.aborted === true || (isResting(run.status) && report !== undefined)) return withValues(run, report?.values);
      if (isResting(run.status)) {
        // Seen at rest through the shared file: a worker process of this server that ended it reports that
        // (with the final values) a moment later; anyone else never does.
        return withValues(run, (await this.restReportedBy(run)) ? (await this.nextReport(run, signal))?.values : undefined);
      }
      report = await this.wakes.next(runId, signal, undefined, run);
    }
  }

  /** True when this process or a worker process of this server ended `run`: its report is on its way. */
  private async restReportedBy(run: RunRecord): Promise<boolean> {
    if (!isTerminal(run.status)) return false;
    // Reported already, while this waiter was reading the run its signal woke it to (the execution here may be over).
    if (this.wakes.holdsReport(run.runId)) return true;
    // Ended here: the rest is emitted after the write whose signal (PostgreSQL) may have woken this waiter first.
    if (runtimeInternals(this.runtime).executesHere(run.runId)) return true;
    if (this.handoff === undefined) return false;
    const claimer = (await this.runtime.records.events(run.runId)).findLast((e) => e.to === "RUNNING")?.actor;
    return claimer != null && this.handoff.reportsRests(claimer);
  }

  /** The run's rest report, skipping other wakes; undefined after {@link REST_GRACE_MS} or an abort. */
  private async nextReport(run: RunRecord, signal?: AbortSignal): Promise<RestReport | undefined> {
    const { runId } = run;
    const deadline = Date.now() + REST_GRACE_MS;
    for (let left = REST_GRACE_MS; left > 0 && signal?.aborted !== true; left = deadline - Date.now()) {
      const report = await this.wakes.next(runId, signal, left, run);
      if (report !== undefined) return report;
    }
    return undefined;
  }

  /** Wakes the waiters of one run to look at it again. */
  notify(runId: string): void {
    this.wakes.notify(runId);
  }

  /** The run came to rest (committed); `values`: its final state, when the execution that ended it sent them. */
  rested(runId: string, values?: Record<string, unknown>): void {
    this.wakes.rested(runId, values);
  }

  /** Stops watching for other processes' writes. */
  close(): void {
    this.wakes.close();
  }
}
