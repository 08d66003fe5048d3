/**
 * `Runtime.createRun`: stores a QUEUED run for a host that starts runs itself (the server), with what such a host
 * needs in the same operation — a thread made in the commit that stores the run, the thread's unfinished runs
 * handled per multitask strategy, and a hold that keeps other processes' workers from claiming it first.
 * @module
 */
import { defaultWaitTtlMs, type RunBudget, type RunGraphConfig, type RunRecord, type RunStatus, type SqliteRunStore } from "../runs/index.js";
import { makeRoom, type MultitaskStrategy } from "./multitask.js";

/** What to store; see {@link Runtime.createRun}. The input is stored as given: validate it first (validateGraphInput). */
export interface CreateRunOptions {
  /** Graph id from langgraph.json. */
  graph: string;
  /** The graph's input as-is. */
  input: unknown;
  /** An existing thread, or a function making one, called inside the commit that stores the run. @default a new thread per run */
  thread?: string | (() => string);
  /** Who the run acts for. @default "anonymous" */
  user?: string;
  /** @default none */
  budget?: RunBudget;
  /** @default none */
  config?: RunGraphConfig;
  /** @default {} */
  metadata?: Record<string, unknown>;
  /** @default env AGENTRT_WAIT_TTL_MS, else forever */
  waitTtlMs?: number;
  /** For this long only a claim by id ({@link Runtime.start}) takes the run, not a worker. @default 0 */
  holdMs?: number;
  /** What to do with the thread's unfinished runs; "interrupt" cancels them as `by`. @default "reject" */
  multitask?: MultitaskStrategy;
  /** Who cancels, for "interrupt". */
  by?: string;
}

/** A stored run, the runs of its thread it waits for (enqueue) and those its creation canceled (interrupt). */
export interface CreatedRun {
  run: RunRecord;
  behind: string[];
  canceled: string[];
}

/** Statuses of a run that has not finished. */
export const UNFINISHED: readonly RunStatus[] = ["QUEUED", "RUNNING", "RETRYING", "WAITING_APPROVAL", "WAITING_INPUT"];

/** What createRun needs from the Runtime: its store and its cancel. */
export interface CreateRunDeps {
  runs: SqliteRunStore;
  cancel: (runId: string, options: { by?: string; reason: string }) => void;
}

/** Stores the run; see {@link CreateRunOptions}. */
export function createRun(deps: CreateRunDeps, options: CreateRunOptions): CreatedRun {
  const { runs } = deps;
  const spec = (threadId: string | undefined) => ({
    graphId: options.graph, input: options.input ?? null, threadId, userId: options.user ?? "anonymous", budget: options.budget,
    waitTtlMs: options.waitTtlMs ?? defaultWaitTtlMs(), config: options.config, metadata: options.metadata ?? {},
    ...(options.holdMs === undefined ? {} : { availableAt: runs.clock() + options.holdMs }),
  });
  if (typeof options.thread === "function") {
    // One wait for the write lock, not two, when worker processes are writing the file (a wait blocks the event loop).
    const make = options.thread;
    return { run: runs.transaction(() => runs.create(spec(make()))), behind: [], canceled: [] };
  }
  const threadId = options.thread;
  const active = threadId === undefined ? [] : runs.list({ threadId, status: UNFINISHED });
  const canceled: string[] = [];
  const behind = threadId === undefined || active.length === 0 ? [] : makeRoom(threadId, active, options.multitask ?? "reject", (runId, reason) => {
    try {
      deps.cancel(runId, { by: options.by, reason });
      canceled.push(runId);
    } catch (error) {
      // Finished since it was listed: left as it is.
      if ((error as { code?: unknown }).code !== "RUN_FINISHED") throw error;
    }
  });
  return { run: runs.create(spec(threadId)), behind, canceled };
}
