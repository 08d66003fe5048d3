import { immediateTransaction, type SqliteDatabase } from "../../src/db/index.js";
import type { StorageError } from "../../src/errors.js";
import type { BatchWrite } from "./commit-batch.js";
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
 * A batch that fails to commit is rolled back whole, and its error reaches the
 * callers whose writes it lost: it is thrown once by the next call on each
 * thread of the batch (put, putWrites, read, delete) and once by the next
 * whole-saver flush (`flush()`, `close()`, a read across every thread), never
 * by a call on a thread the batch did not hold. (Puts still resolve once
 * queued: awaiting the commit would cost a sequential writer a turn per put.)
 */
export class GroupCommit {
  private queue: BatchWrite[] = [];
  /** Threads with queued writes: a read of another thread needs no flush. */
  private threads = new Set<string>();
  private scheduled = false;
  /** A failed batch's error per thread it held, until that thread's next call throws it. */
  private readonly threadFailures = new Map<string, StorageError>();
  /** The first failed batch's error not yet thrown by a whole-saver flush. */
  private failure: StorageError | undefined;
  /** Runs a batch; returns what its writes want run once it has committed. */
  private readonly commit: (batch: BatchWrite[]) => (() => void)[];
  /**
   * Registered on `process` "exit" while writes are queued: `process.exit()` right after
   * an awaited put runs no further event-loop turn, and the batch would be lost.
   */
  private readonly onExit = (): void => {
    // Exiting: nobody is left to report a failure to.
    if (this.db.open) this.commitQueued();
  };

  /** `begin` runs first inside every batch transaction (the refs memo's check, refs-memo.ts). */
  constructor(private readonly db: SqliteDatabase, begin: () => void = () => undefined) {
    this.commit = immediateTransaction(db, (batch: BatchWrite[]) => {
      begin();
      const committed: (() => void)[] = [];
      for (const write of batch) {
        const done = write();
        if (done !== undefined) committed.push(done);
      }
      return committed;
    });
  }

  /** Queues one write to `thread` (run later inside the batch transaction); first throws a failed earlier batch's error if it held `thread`. */
  add(thread: string, write: BatchWrite): void {
    this.throwFailure(thread);
    if (this.queue.length === 0) process.once("exit", this.onExit);
    this.queue.push(write);
    this.threads.add(thread);
    if (this.queue.length >= MAX_BATCH) {
      this.commitQueued();
      this.throwFailure(thread);
    } else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.commitQueued();
      });
    }
  }

  /**
   * Commits the queued writes now if some are for `thread` (every thread when
   * undefined), then throws a failed batch's error not yet reported to this
   * thread (to a whole-saver flush when undefined).
   */
  flush(thread?: string): void {
    if (thread === undefined || this.threads.has(thread)) this.commitQueued();
    this.throwFailure(thread);
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.queue.length;
  }

  /** Commits the whole queue in one transaction; on failure, remembers the error for each of its threads and for the next whole-saver flush. */
  private commitQueued(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    const threads = this.threads;
    this.queue = [];
    this.threads = new Set();
    process.off("exit", this.onExit);
    // Inside a caller's transaction the batch is a savepoint: its writes are not committed when it ends.
    const topLevel = !this.db.inTransaction;
    try {
      const committed = this.commit(batch);
      if (topLevel) for (const done of committed) done();
    } catch (error) {
      const named = [...threads].slice(0, 5).join(", ") + (threads.size > 5 ? ", …" : "");
      const failure = storageError(this.db.name, `group commit of ${batch.length} writes (threads ${named})`, error);
      for (const thread of threads) this.threadFailures.set(thread, failure);
      this.failure ??= failure;
    }
  }

  private throwFailure(thread: string | undefined): void {
    const failure = thread === undefined ? this.failure : this.threadFailures.get(thread);
    if (failure === undefined) return;
    if (thread === undefined) this.failure = undefined;
    else this.threadFailures.delete(thread);
    throw failure;
  }
}
