/**
 * The thread store the routes use: the thread table, and for a thread it has no row of — one whose runs were
 * started by the CLI, the Runtime or a worker, which know nothing of HTTP threads — a thread made from its runs,
 * so every run's thread reads like one created over HTTP. Such a thread gets its row on its first write (a patch,
 * a run created on it over HTTP), never on a read; once deleted it is gone. Its owner is the user of its oldest run.
 * Reads go through the runs module's own interface, so it holds on SQLite and PostgreSQL alike.
 * @module
 */
import { isTerminal, type RunRecord } from "../runs/index.js";
import type { RunRecords } from "../runtime/index.js";
import { GRAPH_ID_KEY } from "./thread-graph.js";
import { OWNER_KEY } from "./ownership.js";
import { threadExistsError, unknownThreadError, type ThreadFilter, type ThreadRow, type ThreadStore } from "./thread-store.js";

/** A thread's runs, newest first (one query); empty for a thread no run has used. */
function runsOf(runs: RunRecords, threadId: string): Promise<RunRecord[]> {
  return runs.list({ threadId, order: "newest" });
}

/** The thread its runs describe: created with its oldest run, bound to its newest run's graph. */
function rowFromRuns(threadId: string, runs: readonly RunRecord[]): ThreadRow | undefined {
  const newest = runs[0];
  const oldest = runs[runs.length - 1];
  if (newest === undefined || oldest === undefined) return undefined;
  return { threadId, metadata: { [GRAPH_ID_KEY]: newest.graphId }, createdAt: oldest.createdAt, updatedAt: newest.updatedAt };
}

/** True when the thread has a stored checkpoint. */
export type HasCheckpoint = (threadId: string) => Promise<boolean>;

/** {@link ThreadStore} over a stored one, also answering for threads known only from their runs. */
export class RunBackedThreads implements ThreadStore {
  constructor(private readonly stored: ThreadStore, private readonly runs: RunRecords, private readonly hasCheckpoint: HasCheckpoint) {}

  /**
   * The thread its runs describe, unless it was deleted: deleting a thread cancels its runs and removes its
   * checkpoints but keeps the runs (their history), so a thread whose runs all ended and that has no checkpoint is gone.
   */
  private async fromRuns(threadId: string): Promise<ThreadRow | undefined> {
    const runs = await runsOf(this.runs, threadId);
    const newest = runs[0];
    if (newest === undefined) return undefined;
    if (isTerminal(newest.status) && !(await this.hasCheckpoint(threadId))) return undefined;
    return rowFromRuns(threadId, runs);
  }

  /**
   * Creates a thread row. An id its runs already describe is an existing thread (409, or itself with "do_nothing"):
   * a create must never hand another caller a thread the CLI started. A deleted thread's id whose runs were another
   * user's is refused too, or its new owner would read those runs.
   */
  async create(threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing" = "raise"): Promise<ThreadRow> {
    if ((await this.stored.find(threadId)) === undefined) {
      const runs = await runsOf(this.runs, threadId);
      const live = runs.length === 0 ? undefined : await this.fromRuns(threadId);
      if (live !== undefined) {
        if (ifExists === "do_nothing") return live;
        throw threadExistsError(threadId);
      }
      const owner = metadata[OWNER_KEY];
      if (typeof owner === "string" && runs.some((run) => run.userId !== owner)) throw threadExistsError(threadId);
    }
    return this.stored.create(threadId, metadata, ifExists);
  }

  async find(threadId: string): Promise<ThreadRow | undefined> {
    return (await this.stored.find(threadId)) ?? this.fromRuns(threadId);
  }

  async get(threadId: string): Promise<ThreadRow> {
    const row = await this.find(threadId);
    if (row === undefined) throw unknownThreadError(threadId);
    return row;
  }

  async patch(threadId: string, metadata: Record<string, unknown>): Promise<ThreadRow> {
    if ((await this.stored.find(threadId)) === undefined) {
      // First write to a thread known from its runs: it gets its row, as its runs describe it.
      const fromRuns = await this.fromRuns(threadId);
      if (fromRuns !== undefined) await this.stored.create(threadId, fromRuns.metadata, "do_nothing");
    }
    return this.stored.patch(threadId, metadata);
  }

  search(filter: ThreadFilter): Promise<ThreadRow[]> {
    return this.stored.search(filter);
  }

  delete(threadId: string): Promise<boolean> {
    return this.stored.delete(threadId);
  }

  copy(threadId: string, metadata: Record<string, unknown>, copyState: (threadId: string) => void | Promise<void>): Promise<ThreadRow> {
    return this.stored.copy(threadId, metadata, copyState);
  }
}
