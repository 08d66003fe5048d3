import type { Transaction } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { StorageError } from "../../src/errors.js";
import { storageError } from "./errors.js";

/** A batch commits at the end of the event-loop turn, or as soon as it holds this many writes. */
const MAX_BATCH = 256;

/**
 * Group commit for `durability: "group"`: writes queued during one event-loop
 * turn share one `BEGIN IMMEDIATE` transaction, committed on `setImmediate`
 * (or when the batch is full, or before a read of a thread it holds writes
 * for). A put resolves once queued, so a crash can lose the last batch, never
 * half of one; a normal exit (also `process.exit()`) commits it.
 *
 * A batch that fails to commit is rolled back whole; its error is thrown by the
 * next call that flushes (any saver read or write, `flush()`, `close()`).
 */
export class GroupCommit {
  private queue: (() => void)[] = [];
  /** Threads with queued writes: a read of another thread needs no flush. */
  private threads = new Set<string>();
  private scheduled = false;
  private failure: StorageError | undefined;
  private readonly commit: Transaction<(batch: (() => void)[]) => void>;
  /**
   * Registered on `process` "exit" while writes are queued: `process.exit()` right after
   * an awaited put runs no further event-loop turn, and the batch would be lost.
   */
  private readonly onExit = (): void => {
    try {
      if (this.db.open) this.flush();
    } catch {
      // Exiting: nobody is left to report it to.
    }
  };

  constructor(private readonly db: SqliteDatabase) {
    this.commit = db.transaction((batch: (() => void)[]) => {
      for (const write of batch) write();
    });
  }

  /** Queues one write to `thread` (run later inside the batch transaction); throws a previous batch's failure first. */
  add(thread: string, write: () => void): void {
    this.throwFailure();
    if (this.queue.length === 0) process.once("exit", this.onExit);
    this.queue.push(write);
    this.threads.add(thread);
    if (this.queue.length >= MAX_BATCH) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        try {
          this.flush();
        } catch {
          // Kept in `failure`; the next call on the saver throws it.
        }
      });
    }
  }

  /** Commits the queued writes now if some are for `thread` (every thread when undefined); throws a failed batch's error. */
  flush(thread?: string): void {
    if (this.queue.length > 0 && (thread === undefined || this.threads.has(thread))) {
      const batch = this.queue;
      this.queue = [];
      this.threads = new Set();
      process.off("exit", this.onExit);
      try {
        this.commit.immediate(batch);
      } catch (error) {
        this.failure = storageError(this.db.name, `group commit of ${batch.length} writes`, error);
      }
    }
    this.throwFailure();
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.queue.length;
  }

  private throwFailure(): void {
    if (this.failure === undefined) return;
    const failure = this.failure;
    this.failure = undefined;
    throw failure;
  }
}
