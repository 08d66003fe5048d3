/**
 * Runs of the HTTP API over the runtime: create (queued, then started here
 * at once through the scheduler), resume an interrupt with `command.resume`
 * bound to the pending action's args hash, and wait until a run rests.
 * @module
 */
import type { z } from "zod";
import { isTerminal, isWaiting, validateBudget, validateGraphConfig, type RunRecord, type RunStatus } from "../runs/index.js";
import {
  threadValues, validateGraphInput, UNFINISHED, type DecisionInput, type MultitaskStrategy, type Runtime, type RuntimeEvent,
} from "../runtime/index.js";
import type { Caller } from "./auth.js";
import { cancelRefusalNow } from "./cancel-authz.js";
import { HttpError } from "./http-error.js";
import { assistantIdFor, newThreadId } from "./ids.js";
import { graphConfigOf, unsupportedOption, type RunCreate } from "./schemas.js";
import { decisionsFrom } from "./resume-decisions.js";
import { runtimeInternals } from "../runtime/internals.js";
import { RunWakes, type RestReport, type RunWakesOptions } from "./run-wakes.js";
import { StorageStalls, type StorageStall } from "./storage-stalls.js";
import type { ThreadStateReader } from "./thread-state.js";
import type { ThreadStore } from "./thread-store.js";

/**
 * How long a waiter that saw its run finish (another connection's commit) waits for the worker process that
 * finished it to report the rest with its final values, before reading the thread's state instead.
 */
const REST_GRACE_MS = 1000;
/** How long a run to be executed here (streamed) stays unclaimable by others if this process never kicks it. */
const HERE_HOLD_MS = 30_000;

/**
 * Where a run may execute: "any" lets a worker process take it when the server has some (runs.wait,
 * background runs); "here" keeps it in this process, whose stream bus a live SSE stream listens to.
 */
export type KickWhere = "any" | "here";

/** A run ready to go: call `kick` once listeners are attached. */
export interface PreparedRun {
  run: RunRecord;
  kick: (where?: KickWhere) => void;
  /** True for a run created by this request; false for the resume of a waiting run. */
  created: boolean;
  /** Runs of its thread it was queued behind (multitask_strategy enqueue); it can start once they rest. */
  behind?: string[];
}

/** The server's worker processes, as the run service uses them (see WorkerPool). */
export interface RunHandoff {
  /** True while a worker can take runs. */
  readonly ready: boolean;
  /** Makes a worker claim now; false when none could be told. */
  poke(): boolean;
  /** A run was canceled: the worker executing it stops now. */
  canceled(runId: string): void;
  /** True when the worker with this id reports its rests to this server (with the final values). */
  reportsRests(workerId: string): boolean;
}

/** A run at rest, with its final state values when the execution that ended it sent them (see RuntimeEvent). */
export interface RestingRun {
  run: RunRecord;
  values?: Record<string, unknown>;
}

function withValues(run: RunRecord, values: Record<string, unknown> | undefined): RestingRun {
  return values === undefined ? { run } : { run, values };
}

/** True once a run waits for a person or has finished. */
export function isResting(status: RunStatus): boolean {
  return isTerminal(status) || isWaiting(status);
}

/** The run operations the routes call. */
export class RunService {
  private readonly stalls: StorageStalls;
  private readonly wakes: RunWakes;

  constructor(
    readonly runtime: Runtime,
    readonly threads: ThreadStore,
    readonly states: ThreadStateReader,
    private readonly log: (line: string) => void,
    private readonly handoff?: RunHandoff,
    options: Pick<RunWakesOptions, "safetyPollMs"> = {},
  ) {
    this.stalls = new StorageStalls(runtime.records);
    // On PostgreSQL, word of other processes' changes wakes waiters at once; the shared poll becomes a safety net.
    const signals = runtime.records.signals;
    const runs = runtimeInternals(runtime).runs;
    this.wakes = new RunWakes(() => runtime.records.dataVersion(), { ...options, states: (ids) => runs.leaseStates(ids), ...(signals === undefined ? {} : { signals }) });
  }

  /** Feed of the runtime's events: wakes whoever waits on a run that came to rest. */
  onRuntimeEvent(event: RuntimeEvent): void {
    // Any status written since (RETRYING for the stall itself, a new attempt) says more than the stall: forget it.
    if (event.type === "status") this.stalls.forget(event.runId);
    if (event.type === "status" && event.status !== "RUNNING") this.rested(event.runId, event.values);
    else if (event.type === "storage_failed") this.stalled(event.runId, event);
  }

  /**
   * The disk refused a write of the run's execution: its waiters answer now with the storage error instead of
   * waiting for a disk that may stay full; the run goes RETRYING (or is recovered after its lease) once there is room.
   */
  stalled(runId: string, stall: StorageStall): void {
    this.stalls.record(runId, stall);
    this.notify(runId);
  }

  /** The graph id an assistant id names: the graph id itself or its derived uuid. */
  graphOf(assistantId: string): string {
    if (this.runtime.registry.entries.has(assistantId)) return assistantId;
    const graphId = this.runtime.registry.ids().find((id) => assistantIdFor(id) === assistantId);
    if (graphId === undefined) throw new HttpError(404, "UNKNOWN_GRAPH", `no assistant or graph ${assistantId}`);
    return graphId;
  }

  /**
   * The graph a thread runs: its latest run's (whose checkpoints it holds), else its metadata's `graph_id`
   * (a copy, or a thread created with a graph id); undefined for a fresh thread.
   */
  async graphOfThread(threadId: string): Promise<string | undefined> {
    const fromRuns = (await this.runtime.records.list({ threadId, order: "newest", limit: 1 }))[0]?.graphId;
    if (fromRuns !== undefined) return fromRuns;
    const fromMeta = (await this.threads.find(threadId))?.metadata.graph_id;
    return typeof fromMeta === "string" ? fromMeta : undefined;
  }

  /**
   * Validates and stores a new run (or the resume of the thread's waiting one). A run to execute "here"
   * (streamed: the stream bus is this process's) is held back from worker processes' claims until it is kicked.
   * `streamedWith`: the run is streamed through the shared chunk log (PostgreSQL) with these modes: a new run says
   * so in its config and is left to any worker (whoever claims it publishes its chunks); a resume still executes here.
   */
  async prepare(
    body: z.infer<typeof RunCreate>, pathThreadId: string | undefined, caller: Caller, where: KickWhere = "any", streamedWith?: readonly string[],
  ): Promise<PreparedRun> {
    // Checked before anything is written (a thread created on the fly included).
    const unsupported = unsupportedOption(body);
    if (unsupported !== undefined) throw new HttpError(422, "BAD_INPUT", unsupported);
    const budget = validateBudget(body.budget);
    const graphId = this.graphOf(body.assistant_id);
    const graph = await this.runtime.registry.load(graphId);
    // Refused input leaves nothing behind: no thread made on the fly, no run, no checkpoint.
    // Read only if a key fails on an empty channel; a thread of another graph is refused below.
    const current = threadValues(graph, pathThreadId);
    await validateGraphInput(graph, graphId, body.input, {
      current: async () => (pathThreadId !== undefined && (await this.graphOfThread(pathThreadId)) === graphId ? current?.() : undefined),
    });
    const validConfig = validateGraphConfig(graphConfigOf(body.config));
    const config = streamedWith === undefined ? validConfig : { ...validConfig, stream: { modes: [...streamedWith] } };
    const spec = {
      graph: graphId, input: body.input ?? null, user: caller.id, budget, config, metadata: body.metadata ?? {},
      // Claimed by id when kicked; if this process dies first, anyone may claim it then.
      ...(where === "here" && streamedWith === undefined ? { holdMs: HERE_HOLD_MS } : {}),
    };
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    if (pathThreadId === undefined && body.command?.resume === undefined && checkpointId === undefined) {
      // Stateless: the thread made for it, then the run (thread store and runs are separate modules): a crash
      // between leaves an empty thread nobody was told of, never a run without its thread.
      const { threadId } = await this.threads.create(newThreadId(), { graph_id: graphId });
      const { run } = await this.runtime.createRun({ ...spec, thread: threadId });
      return { run, created: true, kick: (at) => this.launch(run.runId, at) };
    }
    if (checkpointId !== undefined && (pathThreadId === undefined || (await this.threads.find(pathThreadId)) === undefined)) {
      // Checked before a thread is made on the fly: a refused run must leave nothing behind.
      throw new HttpError(422, "BAD_INPUT", `checkpoint ${checkpointId}: no thread ${pathThreadId ?? "(stateless run)"} has it; run on the thread the checkpoint belongs to`);
    }
    const threadId = await this.threadFor(pathThreadId, body.if_not_exists ?? "reject", graphId);
    if (body.command?.resume !== undefined) {
      // A resume answers the thread's live interrupt: an older checkpoint's interrupt has no run waiting on it.
      if (checkpointId !== undefined) await this.assertNewest(graphId, threadId, checkpointId);
      return this.prepareResume(threadId, body.command.resume, caller, where);
    }
    const fork = checkpointId === undefined ? undefined : await this.forkAt(graphId, threadId, checkpointId);
    const strategy = (body.multitask_strategy ?? "reject") as MultitaskStrategy;
    const ifWaiting = body.if_waiting ?? "supersede";
    if (pathThreadId !== undefined) {
      // Interrupting or superseding cancels runs: refused whole, before any is canceled, unless the caller may cancel each.
      const active = await this.unfinishedRuns(threadId);
      await this.assertMayCancel(strategy === "interrupt" ? active : ifWaiting === "supersede" ? active.filter((r) => isWaiting(r.status)) : [], caller);
    }
    const { run, behind, canceled } = await this.runtime.createRun({
      ...spec, thread: threadId, multitask: strategy, ifWaiting, by: caller.id, ...(fork === undefined ? {} : { beforeCreate: fork }),
    });
    for (const runId of canceled) this.canceled(runId);
    return { run, created: true, kick: (at) => this.launch(run.runId, at), ...(behind.length > 0 ? { behind } : {}) };
  }

  /** Starts (or resumes) a run in this process without waiting for it. */
  start(runId: string): void {
    this.runtime.start(runId).then(
      () => this.notify(runId),
      (error: unknown) => {
        this.log(`run ${runId}: ${error instanceof Error ? error.message : String(error)}`);
        this.notify(runId);
      },
    );
  }

  /**
   * Starts a prepared run (its resume, if any, already stored with it): with worker processes ready and `where`
   * "any", leaves it QUEUED and pokes a worker; otherwise executes it here. Either way its waiters are woken when it rests.
   */
  launch(runId: string, where: KickWhere = "any"): void {
    if (where === "here" || this.handoff?.ready !== true) return this.start(runId);
    // No worker could be told (one just died): the run is QUEUED, with its resume, so it runs here.
    if (!this.handoff.poke()) this.start(runId);
  }

  /** Cancels a run wherever it executes (a worker process stops it at once) and wakes its waiters. */
  async cancel(runId: string, by: string, reason: string): Promise<void> {
    await this.runtime.cancel(runId, { by, reason });
    this.canceled(runId);
  }

  /** A run was canceled: the worker process executing it stops now, its waiters look again. */
  private canceled(runId: string): void {
    this.handoff?.canceled(runId);
    this.notify(runId);
  }

  /** 403 APPROVER_NOT_ALLOWED unless `caller` may cancel every one of `runs` (see cancel-authz.ts); nothing changes. */
  async assertMayCancel(runs: readonly RunRecord[], caller: Caller): Promise<void> {
    for (const run of runs) {
      const refusal = await cancelRefusalNow({ runs: this.runtime.records, states: this.states }, run, caller);
      if (refusal !== undefined) throw refusal;
    }
  }

  /** {@link cancelUnlessFinished} as `caller`, once {@link assertMayCancel} allows it. */
  async cancelAs(run: RunRecord, caller: Caller, reason: string): Promise<void> {
    await this.assertMayCancel([run], caller);
    await this.cancelUnlessFinished(run.runId, caller.id, reason);
  }

  /** {@link cancel}, for a run listed a moment ago: one that has finished since is left as it is. */
  async cancelUnlessFinished(runId: string, by: string, reason: string): Promise<void> {
    try {
      await this.cancel(runId, by, reason);
    } catch (error) {
      if ((error as { code?: unknown }).code !== "RUN_FINISHED") throw error;
    }
  }

  /** The thread's runs that have not finished: queued, running, retrying or waiting. */
  unfinishedRuns(threadId: string): Promise<RunRecord[]> {
    return this.runtime.records.list({ threadId, status: UNFINISHED });
  }

  /** 409 THREAD_BUSY naming the thread's unfinished run and what to do about it (`hint`); nothing when it has none. */
  async assertNoUnfinishedRun(threadId: string, hint: string): Promise<void> {
    const [run] = await this.unfinishedRuns(threadId);
    if (run !== undefined) throw new HttpError(409, "THREAD_BUSY", `thread ${threadId} has an unfinished run ${run.runId} (${run.status}); ${hint}`);
  }

  /** Stops watching for other processes' writes. */
  close(): void {
    this.wakes.close();
  }

  /**
   * Decides pending actions of a waiting run through the runtime (the CLI's checks, wait TTL, codes and fenced
   * application: a decision that lost a race is RUN_NOT_WAITING, 409) and stores them with the run, QUEUED; the
   * kick starts it. Held for this process when it is to execute here.
   */
  async decide(runId: string, decisions: readonly DecisionInput[], where: KickWhere = "any"): Promise<PreparedRun> {
    const here = this.executesHere(where);
    await this.runtime.decide(runId, decisions, { queue: true, ...(here ? { holdMs: HERE_HOLD_MS } : {}) });
    return { run: await this.runtime.records.get(runId), created: false, kick: (at) => this.launch(runId, here ? "here" : at) };
  }

  /** True when a run kicked with `where` executes in this process (no worker process would take it). */
  private executesHere(where: KickWhere): boolean {
    return where === "here" || this.handoff?.ready !== true;
  }

  /** Resolves when the run waits or has finished (or `signal` aborts). */
  async waitResting(runId: string, signal?: AbortSignal): Promise<RunRecord> {
    return (await this.waitSettled(runId, signal)).run;
  }

  /**
   * {@link waitResting}, plus the run's final state values when the rest that woke this waiter carried them
   * (the run ran to its end in this process or a worker process); undefined means: read the checkpoint.
   */
  async waitSettled(runId: string, signal?: AbortSignal): Promise<RestingRun> {
    let report: RestReport | undefined;
    const since = this.runtime.records.now();
    for (;;) {
      const run = await this.runtime.records.get(runId);
      await this.stalls.assertNotStalled(run, since);
      if (signal?.aborted === true || (isResting(run.status) && report !== undefined)) return withValues(run, report?.values);
      if (isResting(run.status)) {
        // Seen at rest through the shared file: a worker process of this server that ended it reports that
        // (with the final values) a moment later; anyone else never does.
        return withValues(run, (await this.restReportedBy(run)) ? (await this.nextReport(run, signal))?.values : undefined);
      }
      report = await this.wakes.next(runId, signal, undefined, run);
    }
  }

  /** True when this process or a worker process of this server ended `run`: its report is on its way. */
  private async restReportedBy(run: RunRecord): Promise<boolean> {
    if (!isTerminal(run.status)) return false;
    // Reported already, while this waiter was reading the run its signal woke it to (the execution here may be over).
    if (this.wakes.holdsReport(run.runId)) return true;
    // Ended here: the rest is emitted after the write whose signal (PostgreSQL) may have woken this waiter first.
    if (runtimeInternals(this.runtime).executesHere(run.runId)) return true;
    if (this.handoff === undefined) return false;
    const claimer = (await this.runtime.records.events(run.runId)).findLast((e) => e.to === "RUNNING")?.actor;
    return claimer != null && this.handoff.reportsRests(claimer);
  }

  /** The run's rest report, skipping other wakes; undefined after {@link REST_GRACE_MS} or an abort. */
  private async nextReport(run: RunRecord, signal?: AbortSignal): Promise<RestReport | undefined> {
    const { runId } = run;
    const deadline = Date.now() + REST_GRACE_MS;
    for (let left = REST_GRACE_MS; left > 0 && signal?.aborted !== true; left = deadline - Date.now()) {
      const report = await this.wakes.next(runId, signal, left, run);
      if (report !== undefined) return report;
    }
    return undefined;
  }

  /** Wakes the waiters of one run to look at it again. */
  notify(runId: string): void {
    this.wakes.notify(runId);
  }

  /** The run came to rest (committed); `values`: its final state, when the execution that ended it sent them. */
  rested(runId: string, values?: Record<string, unknown>): void {
    this.wakes.rested(runId, values);
  }

  /**
   * How a run from `checkpointId` starts, as LangGraph's server runs it: from the newest checkpoint as it is;
   * from an older one on a new branch — a copy of it written as the thread's newest (a fork), its later
   * checkpoints kept as history and the side effects done after it not undone. The returned function writes the
   * fork, once the thread has room for the run. BAD_INPUT for a checkpoint the thread does not have.
   */
  private async forkAt(graphId: string, threadId: string, checkpointId: string): Promise<(() => Promise<void>) | undefined> {
    const newest = (await this.states.state(graphId, threadId))?.config.configurable?.checkpoint_id;
    if (newest === checkpointId) return undefined;
    if ((await this.states.state(graphId, threadId, checkpointId)) === undefined) {
      throw new HttpError(422, "BAD_INPUT", `thread ${threadId} has no checkpoint ${checkpointId}`);
    }
    return async () => {
      await this.states.update(graphId, threadId, null, { checkpointId });
    };
  }

  /** A resume continues from the thread's newest checkpoint, whose interrupt a run waits on. */
  private async assertNewest(graphId: string, threadId: string, checkpointId: string): Promise<void> {
    const newest = (await this.states.state(graphId, threadId))?.config.configurable?.checkpoint_id;
    if (newest !== checkpointId) {
      throw new HttpError(422, "BAD_INPUT", `checkpoint ${checkpointId} is not the thread's newest (${String(newest)}): a resume answers the newest checkpoint's interrupt; run new input from an older one instead`);
    }
  }

  private async threadFor(pathThreadId: string | undefined, ifNotExists: "create" | "reject", graphId: string): Promise<string> {
    if (pathThreadId === undefined) return (await this.threads.create(newThreadId(), { graph_id: graphId })).threadId;
    const thread = await this.threads.find(pathThreadId);
    if (thread === undefined) {
      if (ifNotExists !== "create") throw new HttpError(404, "UNKNOWN_THREAD", `no thread with id ${pathThreadId}`);
      return (await this.threads.create(pathThreadId, { graph_id: graphId })).threadId;
    }
    const owner = await this.graphOfThread(pathThreadId);
    // Its checkpoints are another graph's state: running this graph on them would mix two schemas.
    if (owner !== undefined && owner !== graphId) throw new HttpError(422, "BAD_INPUT", `thread ${pathThreadId} belongs to graph ${owner}, not ${graphId}: use another thread`);
    // Bound to its first run's graph (also repairs a graph_id an older version let a client overwrite).
    if (thread.metadata.graph_id !== graphId) await this.threads.patch(pathThreadId, { graph_id: graphId });
    return pathThreadId;
  }

  private async prepareResume(threadId: string, resume: unknown, caller: Caller, where: KickWhere): Promise<PreparedRun> {
    const active = await this.unfinishedRuns(threadId);
    const waiting = active.find((r) => r.status === "WAITING_APPROVAL");
    const asking = active.find((r) => r.status === "WAITING_INPUT");
    if (waiting === undefined && asking !== undefined) {
      // A plain interrupt(): the resume value (or the one keyed by its interrupt id) is what interrupt() returns.
      const here = this.executesHere(where);
      await this.runtime.answer(asking.runId, resume, { by: caller.authenticated ? caller.id : undefined, queue: true, ...(here ? { holdMs: HERE_HOLD_MS } : {}) });
      return { run: await this.runtime.records.get(asking.runId), created: false, kick: (at) => this.launch(asking.runId, here ? "here" : at) };
    }
    if (waiting === undefined) {
      throw new HttpError(409, "THREAD_NOT_INTERRUPTED", `thread ${threadId} is not interrupted; there is nothing to resume`);
    }
    // Read for a map keyed by interrupt id; the runtime checks the decisions against the live checkpoint again.
    const pending = await this.states.pending(waiting.graphId, threadId, waiting.userId);
    return this.decide(waiting.runId, decisionsFrom(resume, pending, caller, waiting.userId), where);
  }
}
