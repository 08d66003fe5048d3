/**
 * Read-only access to a runtime's run records, for hosts such as the server: runs, their status changes and
 * threads' newest runs, as stored (no lazy wait-TTL check; {@link Runtime.get} does that). Every write goes
 * through the Runtime's operations.
 * @module
 */
import type { RunEvent, RunFilter, RunRecord, RunSignals, RunStore } from "../runs/index.js";

/** The run records of one runtime's database, read-only. */
export class RunRecords {
  /** @internal */
  constructor(
    private readonly runs: RunStore,
    /** Word of status changes committed by any process (PostgreSQL); undefined where none crosses processes. */
    readonly signals?: RunSignals,
  ) {}

  /** The run; UNKNOWN_RUN for an unknown id. */
  get(runId: string): Promise<RunRecord> {
    return this.runs.get(runId);
  }

  /** The run, or undefined. */
  find(runId: string): Promise<RunRecord | undefined> {
    return this.runs.find(runId);
  }

  /** Runs matching the filter, in claim order (priority, then age) unless `order: "newest"`. */
  list(filter: RunFilter = {}): Promise<RunRecord[]> {
    return this.runs.list(filter);
  }

  /** The newest run of each thread of `threadIds` that has one (one query however many threads). */
  latestOfThreads(threadIds: readonly string[]): Promise<Map<string, RunRecord>> {
    return this.runs.latestOfThreads(threadIds);
  }

  /** The run's status changes, oldest first. */
  events(runId: string): Promise<RunEvent[]> {
    return this.runs.events(runId);
  }

  /** "Now" on the clock the runs are stamped with (epoch ms). */
  now(): number {
    return this.runs.clock();
  }

  /** A number that changes whenever another connection has committed runs (SQLite's `data_version`); undefined once closed. */
  dataVersion(): Promise<number | undefined> {
    return this.runs.dataVersion();
  }

  /** A stamp that changes whenever runs change (any process, this one included); undefined once closed. */
  changeStamp(): Promise<string | undefined> {
    return this.runs.changeStamp();
  }
}
