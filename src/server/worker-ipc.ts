/**
 * The messages between `agentrt serve` and the worker processes it forks
 * (over the fork() IPC channel, JSON). Everything durable goes through the
 * SQLite file; these only make the other side look at it now instead of at
 * its next poll.
 * @module
 */
import { isStorageFailureCode, type StorageFailureCode } from "../db/index.js";
import { RUN_STATUSES, type RunStatus } from "../runs/index.js";

/** What a forked worker needs to open the runtime; passed as its one argument, JSON. */
export interface WorkerChildSpec {
  /**
   * The SQLite file shared with the server; empty for a PostgreSQL URL, which goes in the child's environment
   * (`AGENTRT_DATABASE_URL`) so its password never shows in a process listing.
   */
  db: string;
  /** langgraph.json; undefined means the runtime's default. */
  config?: string;
  /** Lease owner written on the runs it claims. */
  workerId: string;
  /** Runs it executes at once. */
  concurrency: number;
  /** Idle poll period; the server's pokes make claims immediate. */
  pollMs: number;
}

/** Server → worker. */
export type ToWorker =
  /** A run was queued (or a resume stored): claim now. */
  | { type: "poke" }
  /** The server canceled this run: if it executes here, check its lease now (it stops at once). */
  | { type: "canceled"; runId: string };

/** Worker → server. */
export type FromWorker =
  /** The runtime is open and the graphs are loaded; pokes are useful from now on. */
  | { type: "ready"; workerId: string }
  /**
   * A run this worker executed came to rest (waits, or finished) and that is committed; `values`: its final
   * state in wire form, when it ran to its end (so the server's waiter needs no checkpoint read).
   */
  | { type: "rest"; runId: string; status: RunStatus; values?: Record<string, unknown> }
  /** The disk refused a write of this run's execution (full, failing): the server's waiters answer with that now. */
  | { type: "stalled"; runId: string; fencingToken: number; code: StorageFailureCode; message: string };

/** A message from a worker, or undefined for anything else on the channel. */
export function parseFromWorker(message: unknown): FromWorker | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const m = message as Record<string, unknown>;
  if (m.type === "ready" && typeof m.workerId === "string") return { type: "ready", workerId: m.workerId };
  if (m.type === "rest" && typeof m.runId === "string" && (RUN_STATUSES as readonly unknown[]).includes(m.status)) {
    const values = m.values !== null && typeof m.values === "object" && !Array.isArray(m.values) ? (m.values as Record<string, unknown>) : undefined;
    return { type: "rest", runId: m.runId, status: m.status as RunStatus, ...(values === undefined ? {} : { values }) };
  }
  if (m.type === "stalled" && typeof m.runId === "string" && typeof m.fencingToken === "number" && isStorageFailureCode(m.code)) {
    return { type: "stalled", runId: m.runId, fencingToken: m.fencingToken, code: m.code, message: typeof m.message === "string" ? m.message : "" };
  }
  return undefined;
}

/** A message from the server, or undefined for anything else on the channel. */
export function parseToWorker(message: unknown): ToWorker | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const m = message as Record<string, unknown>;
  if (m.type === "poke") return { type: "poke" };
  if (m.type === "canceled" && typeof m.runId === "string") return { type: "canceled", runId: m.runId };
  return undefined;
}
