/**
 * Batched commits for the default `durability: "commit"`: a put or putWrites
 * resolves only once its own transaction is committed, but the calls that
 * arrive while one microtask wave runs (32 graphs writing at once through one
 * saver, a graph's put beside its tasks' writes) share that transaction, so
 * they pay for one COMMIT instead of one each. A lone sequential writer still
 * commits every call by itself, at once: a call waits for a microtask only once
 * a second call arrived in the same wave, or the last batch held several.
 * @module
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Statement } from "better-sqlite3";
import { immediateTransaction, type SqliteDatabase } from "../../src/db/index.js";

/** A batch commits as soon as it holds this many writes. */
const MAX_BATCH = 256;

/** A hook run inside the write's transaction (agentrt's lease fence); it may return an undo for a failed commit. */
export type WriteGuard = (config: RunnableConfig) => void | (() => void);

/** Thrown inside a batch by a guard that refused its write; carries the guard's own error. */
export class GuardRefused extends Error {
  constructor(readonly reason: unknown) {
    super("write refused by beforeWrite");
  }
}

/** A write run inside a batch; what it returns runs once its transaction has committed at the top level. */
export type BatchWrite = () => void | (() => void);

interface Queued {
  thread: string;
  write: BatchWrite;
  /** Turns a raw failure of this write (not a guard's refusal) into the error its caller gets. */
  describe: (error: unknown) => unknown;
  guard: { hook: WriteGuard; config: RunnableConfig } | undefined;
  resolve: () => void;
  reject: (error: unknown) => void;
  /** What the guard returned, called if the write ends up not committed. */
  undo?: () => void;
  /** What the write returned, called once it is committed. */
  committed?: () => void;
  /** Set when the write failed inside its savepoint: the rest of the batch goes on without it. */
  failed?: unknown;
}

/**
 * Queues writes and commits them in batches of one BEGIN IMMEDIATE … COMMIT.
 * Each write of a batch of several runs in its own savepoint, so a refused
 * guard or a failing statement rejects that write alone; a failed BEGIN or
 * COMMIT rejects every write of the batch (and calls their guards' undos).
 * A batch with no guard first runs without savepoints (two statements fewer
 * per write, a fifth of a batched put's CPU): writes of a plain saver
 * rarely fail, and when one does the batch is rolled back and run again with
 * savepoints, so it still fails alone.
 */
export class CommitBatch {
  private queue: Queued[] = [];
  private threads = new Set<string>();
  private scheduled = false;
  /** A write committed alone during the current microtask wave: a second call in the same wave means writers are concurrent. */
  private committedThisWave = false;
  /** Size of the last batch committed: after one of several, calls keep batching. */
  private lastBatch = 0;
  private readonly runBatch: (batch: Queued[], isolated: boolean) => void;
  private readonly savepoint: Statement<[]>;
  private readonly release: Statement<[]>;
  private readonly rollbackTo: Statement<[]>;

  /** `begin` runs first inside every batch transaction (the refs memo's check, refs-memo.ts). */
  constructor(private readonly db: SqliteDatabase, begin: () => void = () => undefined) {
    this.savepoint = db.prepare("SAVEPOINT agentrt_write");
    this.release = db.prepare("RELEASE agentrt_write");
    this.rollbackTo = db.prepare("ROLLBACK TO agentrt_write");
    this.runBatch = immediateTransaction(db, (batch: Queued[], isolated: boolean) => {
      begin();
      if (batch.length === 1) {
        const [only] = batch;
        if (only !== undefined) this.apply(only);
        return;
      }
      if (!isolated) {
        for (const queued of batch) {
          try {
            queued.committed = queued.write() ?? undefined;
          } catch (error) {
            throw new OptimisticBatchFailed(error);
          }
        }
        return;
      }
      for (const queued of batch) this.applyIsolated(queued);
    });
  }

  /**
   * Queues `write` (and `guard`, run just before it inside the same transaction);
   * the promise settles once the batch holding it is committed or has failed.
   */
  submit(thread: string, write: BatchWrite, describe: (error: unknown) => unknown, guard?: { hook: WriteGuard; config: RunnableConfig }): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ thread, write, describe, guard, resolve, reject });
      this.threads.add(thread);
      if (this.queue.length >= MAX_BATCH) this.commitQueued();
      else if (!this.scheduled && !this.committedThisWave && this.lastBatch <= 1) {
        // No sign of concurrent writers: commit now, as a lone sequential writer always did (no microtask of delay).
        this.commitQueued();
        this.committedThisWave = true;
        queueMicrotask(() => {
          this.committedThisWave = false;
        });
      } else if (!this.scheduled) {
        this.scheduled = true;
        // A microtask, not a macrotask: every call already resumed in this wave queues before it runs.
        queueMicrotask(() => {
          this.scheduled = false;
          this.commitQueued();
        });
      }
    });
  }

  /** Commits queued writes now if some are for `thread` (any thread when undefined), so a read sees them. */
  flush(thread?: string): void {
    if (thread === undefined || this.threads.has(thread)) this.commitQueued();
  }

  /** Writes queued and not yet committed. */
  get pending(): number {
    return this.queue.length;
  }

  private commitQueued(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.threads = new Set();
    this.lastBatch = batch.length;
    // Inside a caller's transaction the batch is a savepoint: its writes are not committed when it ends.
    const topLevel = !this.db.inTransaction;
    try {
      try {
        this.runBatch(batch, batch.length === 1 || batch.some((queued) => queued.guard !== undefined));
      } catch (error) {
        // One write failed with the others in its transaction, now rolled back: again, each in its savepoint.
        if (!(error instanceof OptimisticBatchFailed)) throw error;
        this.runBatch(batch, true);
      }
    } catch (error) {
      // BEGIN or COMMIT failed, or a write broke the transaction itself: nothing of the batch is on disk.
      for (const queued of batch) {
        queued.undo?.();
        queued.reject(queued.failed ?? reason(queued, error));
      }
      return;
    }
    for (const queued of batch) {
      if (queued.failed === undefined) {
        if (topLevel) queued.committed?.();
        queued.resolve();
      } else queued.reject(queued.failed);
    }
  }

  /** The write alone in its transaction: any failure rolls the transaction back. */
  private apply(queued: Queued): void {
    try {
      this.guarded(queued);
      queued.committed = queued.write() ?? undefined;
    } catch (error) {
      queued.failed = reason(queued, error);
      throw error;
    }
  }

  /** The write in a savepoint: its failure is its own unless it ended the whole transaction. */
  private applyIsolated(queued: Queued): void {
    this.savepoint.run();
    try {
      this.guarded(queued);
      queued.committed = queued.write() ?? undefined;
      this.release.run();
    } catch (error) {
      queued.failed = reason(queued, error);
      if (!this.db.inTransaction) throw error;
      this.rollbackTo.run();
      this.release.run();
      queued.undo?.();
      queued.undo = undefined;
    }
  }

  private guarded(queued: Queued): void {
    if (queued.guard === undefined) return;
    let undo: void | (() => void);
    try {
      undo = queued.guard.hook(queued.guard.config);
    } catch (error) {
      throw new GuardRefused(error);
    }
    if (typeof undo === "function") queued.undo = undo;
  }
}

/** A write of a batch run without savepoints failed: the batch is run again, each write isolated. */
class OptimisticBatchFailed extends Error {
  constructor(readonly reason: unknown) {
    super("a write of a batch without savepoints failed");
  }
}

/** What the caller of `queued` is told for `error`: a guard's own error as it threw it, else the described failure. */
function reason(queued: Queued, error: unknown): unknown {
  return error instanceof GuardRefused ? error.reason : queued.describe(error);
}
