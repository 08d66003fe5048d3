/**
 * A recorder's batches: while one is under way, urgent marks and flushes wait for the outermost to end, and are
 * then written together (one commit instead of several).
 * @module
 */
import type { SpanRow } from "./rows.js";
import type { SpanSink } from "./writer.js";

/** The writes a recorder holds while a batch is under way. */
export class HeldWrites {
  readonly #writer: SpanSink;
  /** Depth of batches under way. */
  #depth = 0;
  /** The flush the outermost batch owes its callers (resolved with the writer's flush when the batch ends). */
  #owed: { promise: Promise<void>; resolve: (written: Promise<void>) => void } | undefined;

  constructor(writer: SpanSink) {
    this.#writer = writer;
  }

  /** True while a batch is under way. */
  get holding(): boolean {
    return this.#depth > 0;
  }

  /** Runs `fn` as a batch; when the outermost ends, the flush asked for inside it is done. */
  run<T>(fn: () => T): T {
    this.#depth++;
    try {
      return fn();
    } finally {
      if (--this.#depth === 0 && this.#owed !== undefined) {
        const owed = this.#owed;
        this.#owed = undefined;
        owed.resolve(this.#writer.flush());
      }
    }
  }

  /** The writer's flush, or inside a batch the promise of the flush at its end. */
  flush(): Promise<void> {
    return this.#depth > 0 ? this.#owe() : this.#writer.flush();
  }

  /** Marks `row` for the writer; an urgent mark inside a batch is written when the batch ends. */
  mark(row: SpanRow, urgent: boolean): void {
    if (urgent && this.#depth > 0) {
      this.#writer.mark(row, false);
      void this.#owe();
    } else {
      this.#writer.mark(row, urgent);
    }
  }

  #owe(): Promise<void> {
    if (this.#owed === undefined) {
      let resolve!: (written: Promise<void>) => void;
      const promise = new Promise<void>((r) => {
        resolve = (written) => r(written);
      });
      this.#owed = { promise, resolve };
    }
    return this.#owed.promise;
  }
}
