/**
 * Batches span writes. Recording a span only marks its row dirty; rows are
 * written in one transaction after a short delay, on an urgent event (a wait,
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

/** Rows kept for a retry after failed flushes; beyond this they are dropped with a warning. */
const MAX_RETAINED = 10_000;
/** Consecutive failed flushes after which the pending rows are given up. */
const MAX_FAILURES = 3;

/** The buffered writer shared by every recorder of one {@link SqliteTraceStore}. */
export class SpanWriter {
  readonly #db: SqliteDatabase;
  readonly #upsert;
  readonly #writeAll: (rows: readonly SpanRow[]) => void;
  readonly #delay: number;
  readonly #max: number;
  readonly #onError: (error: unknown) => void;
  #dirty = new Set<SpanRow>();
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;

  constructor(db: SqliteDatabase, options: SpanWriterOptions = {}) {
    this.#db = db;
    this.#upsert = db.prepare(UPSERT_SQL);
    this.#writeAll = immediateTransaction(db, (rows: readonly SpanRow[]) => {
      for (const row of rows) this.#upsert.run(rowValues(row));
    });
    this.#delay = options.flushDelayMs ?? 25;
    this.#max = options.maxBuffered ?? 512;
    this.#onError = options.onError ?? ((error) => process.emitWarning(`agentrt trace: ${String(error)}`, "AgentrtTraceWarning"));
  }

  /** Marks a row for writing; `urgent` writes it (and everything pending) now. */
  mark(row: SpanRow, urgent = false): void {
    this.#dirty.add(row);
    if (urgent || this.#dirty.size >= this.#max) this.flush();
    else this.#schedule();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.flush(), this.#delay);
    this.#timer.unref();
  }

  /** Writes every dirty row in one transaction. Failures are reported, never thrown. */
  flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#dirty.size === 0 || !this.#db.open) return;
    const rows = [...this.#dirty];
    this.#dirty = new Set();
    try {
      this.#writeAll(rows);
    } catch (error) {
      this.#onError(error);
      // Keep the rows for a few more tries: a lock held too long by another process is transient.
      if (++this.#failures > MAX_FAILURES || this.#dirty.size + rows.length > MAX_RETAINED) return;
      for (const row of rows) this.#dirty.add(row);
      this.#schedule();
      return;
    }
    this.#failures = 0;
  }

  /** Number of rows waiting to be written. */
  get pending(): number {
    return this.#dirty.size;
  }
}
