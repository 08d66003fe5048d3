/**
 * Threads as the Agent Server API knows them: an id, metadata and times, kept in the run database next to runs
 * and checkpoints so a thread created without any run still exists after a restart. Values come from the
 * checkpoints. {@link SqliteThreadStore} and {@link PostgresThreadStore} implement it.
 * @module
 */
import { HttpError } from "./http-error.js";

/** What {@link ThreadStore.search} selects and how it orders them. */
export interface ThreadFilter {
  metadata?: Record<string, unknown>;
  ids?: string[];
  sortBy?: "thread_id" | "created_at";
  sortOrder?: "asc" | "desc";
  /** At most this many; -1 for all. */
  limit: number;
  offset: number;
}

/** A stored thread. */
export interface ThreadRow {
  threadId: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

/** Threads of the HTTP API; each method is one atomic unit. */
export interface ThreadStore {
  /** Creates a thread; an existing id is returned unchanged when `ifExists` is "do_nothing", else 409 THREAD_EXISTS. */
  create(threadId: string, metadata: Record<string, unknown>, ifExists?: "raise" | "do_nothing"): Promise<ThreadRow>;
  /** The thread or undefined. */
  find(threadId: string): Promise<ThreadRow | undefined>;
  /** The thread or a 404 UNKNOWN_THREAD. */
  get(threadId: string): Promise<ThreadRow>;
  /** Merges metadata keys into the thread's metadata and touches it; 404 when there is no such thread. */
  patch(threadId: string, metadata: Record<string, unknown>): Promise<ThreadRow>;
  /**
   * Threads whose metadata contains every given key with an equal (JSON) value (a null value also matches a
   * missing key), and whose id is one of `ids` when given; newest created first unless `sortBy`/`sortOrder` say otherwise.
   */
  search(filter: ThreadFilter): Promise<ThreadRow[]>;
  /** Removes the thread row; true when it existed. */
  delete(threadId: string): Promise<boolean>;
  /**
   * Creates thread `threadId` with `metadata` and has `copyState` copy the source's checkpoints to it. Where the
   * checkpoints share the store's connection (SQLite) both are one commit and `copyState` must be synchronous;
   * elsewhere the checkpoints are copied first, so a crash between leaves unreachable checkpoints, never a copy
   * without its state.
   */
  copy(threadId: string, metadata: Record<string, unknown>, copyState: (threadId: string) => void | Promise<void>): Promise<ThreadRow>;
}

/** 409 THREAD_EXISTS, as every thread store refuses a second thread of one id. */
export function threadExistsError(threadId: string): HttpError {
  return new HttpError(409, "THREAD_EXISTS", `thread ${threadId} already exists (if_exists: "do_nothing" returns it)`);
}

/** 404 UNKNOWN_THREAD, as every thread store answers for an id it does not have. */
export function unknownThreadError(threadId: string): HttpError {
  return new HttpError(404, "UNKNOWN_THREAD", `no thread with id ${threadId}`);
}
