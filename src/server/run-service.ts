/**
 * Runs of the HTTP API over the runtime: create (queued, then started here
 * at once through the scheduler), resume an interrupt with `command.resume`
 * bound to the pending action's args hash, cancel; its waiters (run-waiters.ts)
 * answer when a run rests.
 * @module
 */
import type { z } from "zod";
import { isWaiting, validateBudget, validateGraphConfig, type RunRecord } from "../runs/index.js";
import {
  threadValues, validateGraphInput, UNFINISHED, type CreateIdempotency, type DecisionInput, type MultitaskStrategy, type Runtime,
} from "../runtime/index.js";
import type { GraphCommand } from "../runtime/command-resume.js";
import type { Caller } from "./auth.js";
import { cancelRefusalNow } from "./cancel-authz.js";
import { HttpError } from "./http-error.js";
import { assistantIdFor, newThreadId } from "./ids.js";
import { assertMayAnswer, withOwner } from "./ownership.js";
import { graphConfigOf, unsupportedOption, type RunCreate } from "./schemas.js";
import { decisionsFrom } from "./resume-decisions.js";
import { graphCommandOf } from "./graph-command.js";
import type { RunWakesOptions } from "./run-wakes.js";
import { RunWaiters } from "./run-waiters.js";
import type { ThreadStateReader } from "./thread-state.js";
import type { ThreadStore } from "./thread-store.js";

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

/** A new run's idempotency key, standing for the request's thread and body (the key itself left out). */
function idempotencyOf(body: z.infer<typeof RunCreate>, pathThreadId: string | undefined): { idempotency?: CreateIdempotency } {
  const { idempotency_key: key, ...request } = body;
  return key == null ? {} : { idempotency: { key, request: { thread: pathThreadId ?? null, body: request } } };
}

/** The run operations the routes call. */
export class RunService {
  /** Waiters on runs, woken when one rests (here, in a worker process or anywhere on the database). */
  readonly waiters: RunWaiters;

  constructor(
    readonly runtime: Runtime,
    readonly threads: ThreadStore,
    readonly states: ThreadStateReader,
    private readonly log: (line: string) => void,
    private readonly handoff?: RunHandoff,
    options: Pick<RunWakesOptions, "safetyPollMs"> = {},
  ) {
    this.waiters = new RunWaiters(runtime, handoff, options);
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
      ...idempotencyOf(body, pathThreadId),
    };
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id ?? undefined;
    // Before the stateless branch: a goto or update without a thread would otherwise start a fresh run.
    const command = graphCommandOf(body.command);
    if (command !== undefined && pathThreadId === undefined) throw new HttpError(422, "BAD_INPUT", "command.goto / command.update move a thread's waiting run: run on its thread");
    if (pathThreadId === undefined && body.command?.resume === undefined && checkpointId === undefined) {
      // Stateless: the thread made for it, then the run (thread store and runs are separate modules): a crash
      // between leaves an empty thread nobody was told of, never a run without its thread. Made by createRun, which
      // then knows the thread is new: a thread id would have it list the thread's unfinished runs first, a query
      // (prepared per call) that was ~2 % of the server process's time at 200 runs.wait clients, always finding none.
      const { run, replayed } = await this.runtime.createRun({ ...spec, thread: async () => (await this.threads.create(newThreadId(), withOwner({ graph_id: graphId }, caller))).threadId });
      return { run, created: true, kick: (at) => (replayed === true ? undefined : this.launch(run.runId, at)) };
    }
    if (checkpointId !== undefined && (pathThreadId === undefined || (await this.threads.find(pathThreadId)) === undefined)) {
      // Checked before a thread is made on the fly: a refused run must leave nothing behind.
      throw new HttpError(422, "BAD_INPUT", `checkpoint ${checkpointId}: no thread ${pathThreadId ?? "(stateless run)"} has it; run on the thread the checkpoint belongs to`);
    }
    // A command moves a waiting run: its thread is never made on the fly.
    const threadId = await this.threadFor(pathThreadId, command === undefined ? body.if_not_exists ?? "reject" : "reject", graphId, caller);
    if (command !== undefined) return this.prepareCommand(threadId, command, caller, where);
    if (body.command?.resume !== undefined) {
      // A resume answers the thread's live interrupt: an older checkpoint's interrupt has no run waiting on it.
      if (checkpointId !== undefined) await this.assertNewest(graphId, threadId, checkpointId);
      return this.prepareResume(threadId, body.command.resume, caller, where);
    }
    const fork = checkpointId === undefined ? undefined : await this.forkAt(graphId, threadId, checkpointId);
    const forkConfig = fork === undefined ? spec.config : { ...spec.config, fromCheckpoint: fork };
    const strategy = (body.multitask_strategy ?? "reject") as MultitaskStrategy;
    const ifWaiting = body.if_waiting ?? "supersede";
    if (pathThreadId !== undefined) {
      // Interrupting or superseding cancels runs: refused whole, before any is canceled, unless the caller may cancel each.
      const active = await this.unfinishedRuns(threadId);
      await this.assertMayCancel(strategy === "interrupt" ? active : ifWaiting === "supersede" ? active.filter((r) => isWaiting(r.status)) : [], caller);
    }
    const { run, behind, canceled, replayed } = await this.runtime.createRun({
      ...spec, config: forkConfig, thread: threadId, multitask: strategy, ifWaiting, by: caller.id,
    });
    for (const runId of canceled) this.canceled(runId);
    // A repeated idempotency key's first run was kicked by the request that created it.
    return { run, created: true, kick: (at) => (replayed === true ? undefined : this.launch(run.runId, at)), ...(behind.length > 0 ? { behind } : {}) };
  }

  /** Starts (or resumes) a run in this process without waiting for it. */
  start(runId: string): void {
    this.runtime.start(runId).then(
      () => this.waiters.notify(runId),
      (error: unknown) => {
        this.log(`run ${runId}: ${error instanceof Error ? error.message : String(error)}`);
        this.waiters.notify(runId);
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
    this.waiters.notify(runId);
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

  /**
   * How a run from `checkpointId` starts, as LangGraph's server runs it: from the newest checkpoint as it is
   * (undefined); from an older one on a new branch — the checkpoint id the run's input goes in at (its first
   * checkpoint is that one's child), its later checkpoints kept as history and the side effects done after it not
   * undone. No copy of it is written, so a fork costs the thread no more history entries than on LangGraph's server.
   * BAD_INPUT for a checkpoint the thread does not have.
   */
  private async forkAt(graphId: string, threadId: string, checkpointId: string): Promise<string | undefined> {
    const newest = (await this.states.state(graphId, threadId))?.config.configurable?.checkpoint_id;
    if (newest === checkpointId) return undefined;
    if ((await this.states.state(graphId, threadId, checkpointId)) === undefined) {
      throw new HttpError(422, "BAD_INPUT", `thread ${threadId} has no checkpoint ${checkpointId}`);
    }
    return checkpointId;
  }

  /** A resume continues from the thread's newest checkpoint, whose interrupt a run waits on. */
  private async assertNewest(graphId: string, threadId: string, checkpointId: string): Promise<void> {
    const newest = (await this.states.state(graphId, threadId))?.config.configurable?.checkpoint_id;
    if (newest !== checkpointId) {
      throw new HttpError(422, "BAD_INPUT", `checkpoint ${checkpointId} is not the thread's newest (${String(newest)}): a resume answers the newest checkpoint's interrupt; run new input from an older one instead`);
    }
  }

  private async threadFor(pathThreadId: string | undefined, ifNotExists: "create" | "reject", graphId: string, caller: Caller): Promise<string> {
    if (pathThreadId === undefined) return (await this.threads.create(newThreadId(), withOwner({ graph_id: graphId }, caller))).threadId;
    const thread = await this.threads.find(pathThreadId);
    if (thread === undefined) {
      if (ifNotExists !== "create") throw new HttpError(404, "UNKNOWN_THREAD", `no thread with id ${pathThreadId}`);
      return (await this.threads.create(pathThreadId, withOwner({ graph_id: graphId }, caller))).threadId;
    }
    const owner = await this.graphOfThread(pathThreadId);
    // Its checkpoints are another graph's state: running this graph on them would mix two schemas.
    if (owner !== undefined && owner !== graphId) throw new HttpError(422, "BAD_INPUT", `thread ${pathThreadId} belongs to graph ${owner}, not ${graphId}: use another thread`);
    // Bound to its first run's graph (also repairs a graph_id an older version let a client overwrite).
    if (thread.metadata.graph_id !== graphId) await this.threads.patch(pathThreadId, { graph_id: graphId });
    return pathThreadId;
  }

  /**
   * LangGraph's `Command({ goto, update })` for the thread's waiting run (see Runtime.command): checked like a
   * decision by the caller (without auth, by the run's user), stored with the run, QUEUED; the kick starts it.
   */
  private async prepareCommand(threadId: string, command: GraphCommand, caller: Caller, where: KickWhere): Promise<PreparedRun> {
    const active = await this.unfinishedRuns(threadId);
    const waiting = active.find((r) => r.status === "WAITING_APPROVAL") ?? active.find((r) => r.status === "WAITING_INPUT");
    if (waiting === undefined) {
      throw new HttpError(409, "THREAD_NOT_INTERRUPTED", `thread ${threadId} has no run waiting for an answer: command.goto / command.update move a waiting run; send new input instead`);
    }
    const here = this.executesHere(where);
    const decider = caller.authenticated ? { by: caller.id, roles: caller.roles } : { by: waiting.userId, roles: [] };
    await this.runtime.command(waiting.runId, command, { ...decider, queue: true, ...(here ? { holdMs: HERE_HOLD_MS } : {}) });
    return { run: await this.runtime.records.get(waiting.runId), created: false, kick: (at) => this.launch(waiting.runId, here ? "here" : at) };
  }

  private async prepareResume(threadId: string, resume: unknown, caller: Caller, where: KickWhere): Promise<PreparedRun> {
    const active = await this.unfinishedRuns(threadId);
    const waiting = active.find((r) => r.status === "WAITING_APPROVAL");
    const asking = active.find((r) => r.status === "WAITING_INPUT");
    if (waiting === undefined && asking !== undefined) {
      // A plain interrupt(): the resume value (or the one keyed by its interrupt id) is what interrupt() returns.
      // Its question is the thread owner's to answer (an approver only decides approvals).
      await assertMayAnswer(this, asking, caller);
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
