/**
 * `Runtime.createRun`: stores a QUEUED run for a host that starts runs itself (the server), with what such a host
 * needs in the same operation — a thread made just before the run is stored, the thread's unfinished runs
 * handled per multitask strategy, and a hold that keeps other processes' workers from claiming it first.
 * @module
 */
import { defaultWaitTtlMs, isTerminal, type ExpectedRunState, type RunBudget, type RunGraphConfig, type RunRecord, type RunStatus, type RunStore } from "../runs/index.js";
import { UserInputError } from "../errors.js";
import { createOnce, firstRunOf, runIdempotency, type CreateIdempotency } from "./idempotent-create.js";
import { makeRoom, type IfWaiting, type MultitaskStrategy } from "./multitask.js";

/** What to store; see {@link Runtime.createRun}. The input is stored as given: validate it first (validateGraphInput). */
export interface CreateRunOptions {
  /** Graph id from langgraph.json. */
  graph: string;
  /** The graph's input as-is. */
  input: unknown;
  /**
   * An existing thread, or a function making one, called just before the run is stored (a crash between the
   * two leaves an empty thread, as creating a thread alone does). @default a new thread per run
   */
  thread?: string | (() => string | Promise<string>);
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
  /** What new input does to a run of the thread waiting for an answer. @default "supersede" */
  ifWaiting?: IfWaiting;
  /** Who cancels, for "interrupt" and a superseded waiting run. */
  by?: string;
  /**
   * Called once the thread has room (its runs canceled per strategy), just before the run is stored: the server
   * forks the thread at an earlier checkpoint here, so the run starts from it. Refused (THREAD_BUSY) while a run
   * of the thread it would queue behind is unfinished: that run would move the thread's head first. @default none
   */
  beforeCreate?: () => Promise<void>;
  /**
   * A retried create (same user, same key, same request) returns the first run (`replayed`) instead of storing a
   * second, for IDEMPOTENCY_TTL_MS; the key with another request is IDEMPOTENCY_KEY_REUSED. @default none
   */
  idempotency?: CreateIdempotency;
}

/** A stored run, the runs of its thread it waits for (enqueue) and those its creation canceled (interrupt). */
export interface CreatedRun {
  run: RunRecord;
  behind: string[];
  canceled: string[];
  /** True when `run` is the first run of a repeated idempotency key: nothing was stored or canceled now. */
  replayed?: boolean;
}

/** Statuses of a run that has not finished. */
export const UNFINISHED: readonly RunStatus[] = ["QUEUED", "RUNNING", "RETRYING", "WAITING_APPROVAL", "WAITING_INPUT"];

/** What createRun needs from the Runtime: its store and its cancel. */
export interface CreateRunDeps {
  runs: RunStore;
  /** Cancels as `by`; with `expect` only while the run is still so (else RUN_NOT_WAITING). */
  cancel: (runId: string, options: { by?: string; reason: string; expect?: ExpectedRunState }) => Promise<unknown>;
}

/** Stores the run; see {@link CreateRunOptions}. */
export async function createRun(deps: CreateRunDeps, options: CreateRunOptions): Promise<CreatedRun> {
  const { runs } = deps;
  const userId = options.user ?? "anonymous";
  const idempotency = options.idempotency === undefined ? undefined : runIdempotency(options.idempotency, () => requestOf(options));
  const spec = (threadId: string | undefined) => ({
    graphId: options.graph, input: options.input ?? null, threadId, userId, budget: options.budget,
    waitTtlMs: options.waitTtlMs ?? defaultWaitTtlMs(), config: options.config, metadata: options.metadata ?? {},
    ...(options.holdMs === undefined ? {} : { availableAt: runs.clock() + options.holdMs }), idempotency,
  });
  const first = async () => (idempotency === undefined ? undefined : firstRunOf(runs, userId, idempotency));
  const replay = (run: RunRecord): CreatedRun => ({ run, behind: [], canceled: [], replayed: true });
  if (typeof options.thread === "function") {
    const known = await first();
    if (known !== undefined) return replay(known);
    // A new thread has no runs to make room among.
    const made = spec(await options.thread());
    return { ...(await createOnce(runs, idempotency, () => runs.create(made))), behind: [], canceled: [] };
  }
  const threadId = options.thread;
  const active = threadId === undefined ? [] : await runs.list({ threadId, status: UNFINISHED });
  // Looked up after the listing: a first run that the listing holds is returned, never canceled or refused as busy.
  const known = await first();
  if (known !== undefined) return replay(known);
  const { behind, canceled } = threadId === undefined ? { behind: [], canceled: [] } : await makeRoomNow(deps, threadId, active, options);
  await options.beforeCreate?.();
  const { run, replayed } = await createOnce(runs, idempotency, () => runs.create(spec(threadId)));
  return replayed ? replay(run) : { run, behind, canceled };
}

/** What a key stands for when the caller names no request: the run as asked for. */
function requestOf(options: CreateRunOptions): unknown {
  const { graph, input, budget, config, metadata, multitask, ifWaiting } = options;
  return { graph, input: input ?? null, thread: typeof options.thread === "string" ? options.thread : null, budget, config, metadata, multitask, ifWaiting };
}

/** Times a listed waiting run may move on and wait again under one create before the create is refused. */
const SUPERSEDE_ROUNDS = 5;

/**
 * makeRoom over the listed runs, then the cancels it asks for. A supersede cancels only a run still waiting as
 * listed (checked in the cancel's own write): one an approval moved on meanwhile — its action approved, maybe
 * running — is read again and handled as the queued or running run it now is (THREAD_BUSY under reject, queued
 * behind under enqueue), so an approval answered 200 is never thrown away. Only the first round refuses before
 * anything changes: a later refusal leaves the runs already superseded canceled.
 */
async function makeRoomNow(deps: CreateRunDeps, threadId: string, active: readonly RunRecord[], options: CreateRunOptions): Promise<Room> {
  const room: Room = { behind: [], canceled: [] };
  let listed = active;
  for (let round = 0; listed.length > 0; round++) {
    if (round === SUPERSEDE_ROUNDS) throw new UserInputError("THREAD_BUSY", `thread ${threadId}: its waiting run kept moving on while new input superseded it; try again`);
    const asked: Cancel[] = [];
    room.behind.push(...makeRoom(threadId, listed, options.multitask ?? "reject", (runId, reason, expect) => {
      asked.push({ runId, reason, expect });
    }, options.ifWaiting));
    if (options.beforeCreate !== undefined && room.behind.length > 0) {
      throw new UserInputError("THREAD_BUSY", `thread ${threadId} has an unfinished run ${room.behind.join(", ")}: a run from an earlier checkpoint cannot queue behind it (it would move the thread's head first); wait for it, or use multitask_strategy interrupt`);
    }
    const movedOn: RunRecord[] = [];
    for (const cancel of asked) {
      const outcome = await cancelListed(deps, cancel, options.by);
      if (outcome === "canceled") room.canceled.push(cancel.runId);
      else if (outcome !== "finished") movedOn.push(outcome);
    }
    listed = movedOn;
  }
  return room;
}

interface Room {
  behind: string[];
  canceled: string[];
}

interface Cancel {
  runId: string;
  reason: string;
  expect: ExpectedRunState | undefined;
}

/** One cancel makeRoom asked for: "finished" when the run finished since it was listed, the run as it is now when it no longer waits as `expect`. */
async function cancelListed(deps: CreateRunDeps, { runId, reason, expect }: Cancel, by: string | undefined): Promise<"canceled" | "finished" | RunRecord> {
  try {
    await deps.cancel(runId, { by, reason, ...(expect === undefined ? {} : { expect }) });
    return "canceled";
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "RUN_FINISHED") return "finished";
    if (code !== "RUN_NOT_WAITING" || expect === undefined) throw error;
  }
  const now = await deps.runs.find(runId);
  return now === undefined || isTerminal(now.status) ? "finished" : now;
}
