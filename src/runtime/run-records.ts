/**
 * Read-only access to a runtime's run records, for hosts such as the server: runs, their status changes and
 * threads' newest runs, as stored (no lazy wait-TTL check; {@link Runtime.get} does that). Every write goes
 * through the Runtime's operations.
 * @module
 */
import type { RunEvent, RunFilter, RunRecord, SqliteRunStore } from "../runs/index.js";

/** The run records of one runtime's file, read-only. */
export class RunRecords {
  /** @internal */
  constructor(private readonly runs: SqliteRunStore) {}

  /** The run; UNKNOWN_RUN for an unknown id. */
  get(runId: string): RunRecord {
    return this.runs.get(runId);
  }

  /** The run, or undefined. */
  find(runId: string): RunRecord | undefined {
    return this.runs.find(runId);
  }

  /** Runs matching the filter, in claim order (priority, then age) unless `order: "newest"`. */
  list(filter: RunFilter = {}): RunRecord[] {
    return this.runs.list(filter);
  }

  /** The newest run of each thread of `threadIds` that has one (one query however many threads). */
  latestOfThreads(threadIds: readonly string[]): Map<string, RunRecord> {
    return this.runs.latestOfThreads(threadIds);
  }

  /** The run's status changes, oldest first. */
  events(runId: string): RunEvent[] {
    return this.runs.events(runId);
  }

  /** "Now" on the clock the runs are stamped with (epoch ms). */
  now(): number {
    return this.runs.clock();
  }

  /** A number that changes whenever another connection has committed to the file (SQLite's `data_version`); undefined once closed. */
  dataVersion(): number | undefined {
    return this.runs.db.open ? (this.runs.db.pragma("data_version", { simple: true }) as number) : undefined;
  }

  /**
   * A stamp that changes whenever anything commits to the file, this connection included (`data_version` moves
   * with other connections' commits, `total_changes()` with this one's); undefined once closed.
   */
  changeStamp(): string | undefined {
    const db = this.runs.db;
    if (!db.open) return undefined;
    return `${String(db.pragma("data_version", { simple: true }))}:${String(db.prepare("SELECT total_changes()").pluck().get())}`;
  }
}
