/**
 * Batches span writes. Recording a span only marks its row dirty; rows are
 * written in one batch after a short delay, on an urgent event (a wait,
 * a state change, the run's end) or on `flush()`, so tracing costs one commit
 * per batch (usually several steps) rather than a write per span.
 * @module
 */
import { immediateTransaction, type SqliteDatabase } from "../db/index.js";
import { UPSERT_SQL, rowValues, type SpanRow } from "./rows.js";

/** How the writer batches. */
export interface SpanWriterOptions {
  /** Longest a dirty span waits before it is written. @default 25 */
  flushDelayMs?: number;
  /** Dirty rows that force an immediate flush. @default 512 */
  maxBuffered?: number;
  /** Called when a flush fails; tracing never throws into the run. @default process.emitWarning */
  onError?: (error: unknown) => void;
}

/** Where a recorder puts its rows: marked in memory, written by `flush`. */
export interface SpanSink {
  /** Marks a row for writing; `urgent` writes it (and everything pending) now. */
  mark(row: SpanRow, urgent?: boolean): void;
  /** Writes every dirty row; never rejects (a synchronous write inside a caller's transaction throws: see only()). */
  flush(): Promise<void>;
  /** The rows of `runId` marked but not written yet. */
  pendingOf(runId: string): SpanRow[];
  /** Drops a row marked but not written (a provisional mark whose transaction rolled back). */
  forget(row: SpanRow): void;
  /**
   * From now on flushes write the rows of `runId` only (undefined: every run's) and leave the others marked: what a
   * write inside a caller's transaction that may roll back may take with it; a failed write then throws, for that
   * caller to roll back, instead of being kept for a retry. Returns the scope it replaces.
   */
  only(runId: string | undefined): string | undefined;
}

/**
 * Writes one batch. A synchronous writer (SQLite) returns nothing and has written when it returns;
 * an asynchronous one (PostgreSQL) returns the promise of its one round trip.
 */
export type WriteBatch = (rows: readonly SpanRow[]) => void | Promise<void>;

/** Rows kept for a retry after failed flushes; beyond this they are dropped with a warning. */
const MAX_RETAINED = 10_000;
/** Consecutive failed flushes after which the pending rows are given up. */
const MAX_FAILURES = 3;

const DONE: Promise<void> = Promise.resolve();

/** The buffered writer shared by every recorder of one trace store. */
export class SpanWriter implements SpanSink {
  readonly #write: WriteBatch;
  readonly #canWrite: () => boolean;
  readonly #delay: number;
  readonly #max: number;
  readonly #onError: (error: unknown) => void;
  #dirty = new Set<SpanRow>();
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #only: string | undefined;
  // The last asynchronous write still in flight: later batches follow it, so a span's end never overtakes its start.
  #tail: Promise<void> | undefined;

  constructor(write: WriteBatch, options: SpanWriterOptions = {}, canWrite: () => boolean = () => true) {
    this.#write = write;
    this.#canWrite = canWrite;
    this.#delay = options.flushDelayMs ?? 25;
    this.#max = options.maxBuffered ?? 512;
    this.#onError = options.onError ?? ((error) => process.emitWarning(`agentrt trace: ${String(error)}`, "AgentrtTraceWarning"));
  }

  /** Marks a row for writing; `urgent` writes it (and everything pending) now. */
  mark(row: SpanRow, urgent = false): void {
    this.#dirty.add(row);
    if (urgent || this.#dirty.size >= this.#max) void this.flush();
    else this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => void this.flush(), this.#delay);
    this.#timer.unref();
  }

  /**
   * Writes every dirty row as one batch; resolves when it (and every earlier batch) is written. A synchronous
   * writer has written before this returns. Failures are reported, never thrown.
   */
  flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#dirty.size === 0 || !this.#canWrite()) return this.#tail ?? DONE;
    const rows = this.#take();
    if (rows.length === 0) return this.#tail ?? DONE;
    if (this.#tail === undefined) {
      const written = this.#attempt(rows);
      return written === undefined ? DONE : this.#follow(written);
    }
    return this.#follow(this.#tail.then(() => this.#attempt(rows)));
  }

  /** The rows the next write takes out of the dirty set: all of them, or only the scoped run's (see {@link only}). */
  #take(): SpanRow[] {
    if (this.#only === undefined) {
      const rows = [...this.#dirty];
      this.#dirty = new Set();
      return rows;
    }
    const rows = this.pendingOf(this.#only);
    for (const row of rows) this.#dirty.delete(row);
    // The other runs' rows still wait for their batch.
    if (this.#dirty.size > 0) this.#schedule();
    return rows;
  }

  /** {@link SpanSink.forget}. */
  forget(row: SpanRow): void {
    this.#dirty.delete(row);
  }

  /** {@link SpanSink.only}. */
  only(runId: string | undefined): string | undefined {
    const previous = this.#only;
    this.#only = runId;
    return previous;
  }

  /** Number of rows waiting to be written. */
  get pending(): number {
    return this.#dirty.size;
  }

  /** The rows of `runId` marked but not written yet (what a lookup adds to what is stored). */
  pendingOf(runId: string): SpanRow[] {
    const rows: SpanRow[] = [];
    for (const row of this.#dirty) if (row.run_id === runId) rows.push(row);
    return rows;
  }

  /** Writes `rows`; undefined when done synchronously, else the promise of the write (which never rejects). */
  #attempt(rows: readonly SpanRow[]): Promise<void> | undefined {
    let result: void | Promise<void>;
    try {
      result = this.#write(rows);
    } catch (error) {
      // Inside a caller's transaction (see only()) the caller decides: its savepoint rolls these rows back.
      if (this.#only !== undefined) throw error;
      this.#failed(rows, error);
      return undefined;
    }
    if (result === undefined) {
      this.#failures = 0;
      return undefined;
    }
    return result.then(
      () => {
        this.#failures = 0;
      },
      (error: unknown) => this.#failed(rows, error),
    );
  }

  #failed(rows: readonly SpanRow[], error: unknown): void {
    this.#onError(error);
    // Keep the rows for a few more tries: a lock held too long by another process is transient.
    if (++this.#failures > MAX_FAILURES || this.#dirty.size + rows.length > MAX_RETAINED) return;
    for (const row of rows) this.#dirty.add(row);
    this.#schedule();
  }

  #follow(written: Promise<void>): Promise<void> {
    this.#tail = written;
    void written.then(() => {
      if (this.#tail === written) this.#tail = undefined;
    });
    return written;
  }
}

/** The SQLite batch writer: every row upserted in one BEGIN IMMEDIATE transaction (a savepoint inside the caller's). */
export function sqliteSpanWriter(db: SqliteDatabase, options: SpanWriterOptions = {}): SpanWriter {
  const upsert = db.prepare(UPSERT_SQL);
  const writeAll = immediateTransaction(db, (rows: readonly SpanRow[]) => {
    for (const row of rows) upsert.run(rowValues(row));
  });
  return new SpanWriter(writeAll, options, () => db.open);
}
