/**
 * The runtime facade: submit runs, approve or reject their pending actions,
 * cancel them, and run workers — over one database (a SQLite file, or a
 * PostgreSQL schema) holding runs, checkpoints, traces and memory. The CLI and the server are thin layers on it.
 * @module
 */
import { DEFAULT_SQLITE_PATH } from "../db/index.js";
import { UserInputError } from "../errors.js";
import type { ApprovalResume } from "../graph/approval.js";
import type { MemoryStore } from "../memory/memory-store.js";
import {
  Scheduler, createWorker, executeClaimed, defaultLeaseMs, newSortableId, isTerminal, isWaiting,
  IllegalTransitionError, LeaseLostError, WorkerStoppingError,
  type ClaimedRun, type CreateRunInput, type RunStore, type ExecutionResult, type RunLease, type RunRecord, type RunStatus, type Worker, type WorkerOptions, type ExpectedRunState,
} from "../runs/index.js";
import type { TraceRecorder, TraceStore } from "../trace/index.js";
import { GraphRegistry } from "./graph-registry.js";
import { fenceCheckpoints } from "./checkpoint-fence.js";
import { openRuntimeStorage } from "./storage/open-runtime-storage.js";
import type { RuntimeStorage } from "./storage/runtime-storage.js";
import { executeAndRecord, type ClaimDeps } from "./execute-and-record.js";
import { startWithClaim } from "./trace-within.js";
import { stampRunIds } from "./run-stamp.js";
import type { InputResume } from "./input-resume.js";
import { checkDecisions, checkInput, currentRun, decisionInput, queueResume, type DecisionDeps, type DecisionInput } from "./decisions.js";
import { checkCommand, commandNote, type GraphCommand } from "./command-resume.js";
import { createRun, type CreateRunOptions, type CreatedRun } from "./create-run.js";
import { firstRunOf, heldBy } from "./idempotent-create.js";
import { RunRecords } from "./run-records.js";
import { submitSpec } from "./submit-spec.js";
import { inFlightCalls, listSideEffects, settledSideEffects } from "./side-effects.js";
import { runViewOf } from "./run-reader.js";
import { toRunView, type RunView } from "./run-view.js";
import { syncStateChanges } from "./state-changes.js";
import { registerInternals } from "./internals.js";
import { ChunkPublisher } from "../streams/chunk-publisher.js";
import type { CanceledRunView, DecisionOptions, InputOptions, ResumeOptions, RuntimeOptions, SubmitOptions } from "./runtime-options.js";

/** The agentrt runtime over one database (SQLite file or PostgreSQL schema). */
export class Runtime {
  /** The runs as stored, read-only; every change goes through this class's operations. */
  readonly records: RunRecords;
  readonly trace: TraceStore;
  readonly registry: GraphRegistry;
  /** The long-term memory every graph gets as `config.store` (the server's `/store` endpoints read and write it too). */
  readonly store: MemoryStore;
  private readonly storage: RuntimeStorage;
  private readonly runs: RunStore;
  private readonly scheduler: Scheduler;
  private readonly deps: ClaimDeps;
  /** What the decision/input checks use (the unbound registry, as before the split). */
  private readonly decisionDeps: DecisionDeps;
  /** Leases of runs executing in this process, so a cancel here stops them at once. */
  private readonly active = new Map<string, RunLease>();
  /** Runs executing here outside a worker loop (submit, start, approve), until recorded or handed back. */
  private readonly executions = new Set<Promise<ExecutionResult>>();

  private constructor(storage: RuntimeStorage, registry: GraphRegistry, options: RuntimeOptions) {
    this.storage = storage;
    this.registry = registry;
    const { runs, trace, store, ledger, db } = storage;
    this.runs = runs;
    this.records = new RunRecords(runs, storage.signals);
    this.trace = trace;
    this.store = store;
    this.scheduler = new Scheduler(runs, options.scheduler);
    // Checkpoints carry the run that wrote them: execute-run tells a new turn from a recovery by it.
    // Fenced by the writing execution's lease, inside the checkpoint's own transaction (see checkpoint-fence.ts).
    const checkpointer = stampRunIds(storage.checkpointer(fenceCheckpoints(runs, this.active)));
    this.deps = {
      db, ledger, sharedLimits: storage.sharedLimits, registry: registry.bind({ checkpointer, store }), runs, trace,
      emit: options.onEvent ?? (() => undefined),
      // The trace's start follows the claim's commit (startRecording); run_events stay the source of truth.
      recorder: (run, init) => trace.recorder(run.runId, { graph: run.graphId, agent: run.graphId, init }),
      pricing: trace.pricing,
      leaseMs: options.leaseMs ?? defaultLeaseMs(),
      workerId: options.workerId ?? `rt_${newSortableId()}`,
      // On PostgreSQL, watched runs are published to the shared chunk log whichever process executes them.
      streams: options.streams ?? (storage.chunks === undefined ? undefined : new ChunkPublisher(storage.chunks)),
    };
    this.decisionDeps = { runs, trace, recorder: this.deps.recorder, registry };
    registerInternals(this, { db, runs, storage, executesHere: (runId) => this.active.has(runId) });
  }

  /**
   * Opens the database (a SQLite file, created and migrated here; or a `postgres://` URL, whose tables are created
   * or migrated by {@link ready} or on first use) and reads langgraph.json.
   */
  static open(options: RuntimeOptions = {}): Runtime {
    const registry = GraphRegistry.fromConfig(options.config);
    const storage = openRuntimeStorage(options.db ?? DEFAULT_SQLITE_PATH, { mustExist: options.mustExist });
    try {
      return new Runtime(storage, registry, options);
    } catch (error) {
      void storage.close();
      throw error;
    }
  }

  /**
   * Connects and creates or migrates every table now rather than on first use, so an unreachable server, bad
   * credentials or a schema written by a newer agentrt fail here (instant on SQLite, which migrated on open).
   */
  ready(): Promise<void> {
    return this.storage.ready();
  }

  /** Creates a run; runs it here until it finishes or waits unless `queue` is set. A repeated `idempotencyKey`: the first run. */
  async submit(options: SubmitOptions): Promise<RunView> {
    const spec = await submitSpec(this.registry, this.runs, options);
    const { idempotency } = spec;
    const first = idempotency === undefined ? undefined : await firstRunOf(this.runs, spec.userId ?? "anonymous", idempotency);
    if (first !== undefined) return this.view(first);
    return this.submitNew(spec, options.queue === true).catch(async (error: unknown) => {
      const racing = heldBy(error, idempotency);
      if (racing === undefined) throw error;
      return this.get(racing);
    });
  }

  private async submitNew(spec: CreateRunInput, queue: boolean): Promise<RunView> {
    if (queue) return toRunView(await this.runs.create(spec));
    // Created and claimed in one commit, with its trace's start on SQLite; on PostgreSQL the trace starts after it (a
    // crash between leaves a claimed run whose lease expires, and its trace is rebuilt from run_events when it starts again).
    const start = startWithClaim(this.deps);
    const { run, claimed } = await this.scheduler.createAndClaim(spec, { workerId: this.deps.workerId, leaseMs: this.deps.leaseMs }, start.within);
    // Over a cap or behind an older run of its thread: left QUEUED for a worker.
    if (claimed === undefined) return this.get(run.runId);
    return this.executeHere(claimed, await start.recorder(claimed.run));
  }

  /**
   * Runs a QUEUED (or waiting, with `resume` decisions) run here now and resolves when it
   * rests; over a cap or running elsewhere it is left to a worker. Decisions are not re-checked.
   */
  async start(runId: string, resume?: ApprovalResume[] | InputResume): Promise<RunView> {
    return this.runHere(runId, resume);
  }

  /** The run as the CLI shows it (EXPIRED once its wait outlived its TTL); UNKNOWN_RUN (exit 2) for an unknown id. */
  async get(runId: string): Promise<RunView> {
    return this.view(await this.current(runId));
  }

  /** Runs, newest first, optionally of one status. */
  async list(filter: { status?: RunStatus; limit?: number } = {}): Promise<RunView[]> {
    // Waits past their TTL show as EXPIRED here too, even with no worker sweeping (the store takes the write
    // lock only when a wait is overdue).
    const expired = await this.runs.expireOverdueWaits();
    for (const run of expired) await syncStateChanges(this.runs, await this.deps.recorder(run), run);
    if (expired.length > 0) await this.trace.flush();
    // Newest first, so a limit keeps the latest runs (the store's default is claim order).
    return (await this.runs.list({ ...filter, order: "newest" })).map(toRunView);
  }

  /** Approves one pending action (bound to its args hash) and resumes the run here. */
  async approve(runId: string, decision: DecisionOptions): Promise<RunView> {
    return this.decide(runId, [decisionInput(decision, "approve")], { queue: decision.queue });
  }

  /** Rejects one pending action; the rejection goes back to the model, which continues. */
  async reject(runId: string, decision: DecisionOptions): Promise<RunView> {
    return this.decide(runId, [decisionInput(decision, "reject")], { queue: decision.queue });
  }

  /**
   * Decides pending actions of a WAITING_APPROVAL run, one decision per action, and resumes it here (or leaves it
   * QUEUED with `queue`). Checked against the live checkpoint and the wait TTL before anything changes, then applied
   * only to the wait that was checked: a decision that lost a race with another decision or a cancel is
   * RUN_NOT_WAITING and changes nothing. `approve`, `reject` and the server's approvals all come here.
   */
  async decide(runId: string, decisions: readonly DecisionInput[], options: ResumeOptions = {}): Promise<RunView> {
    const { resume, expect } = await checkDecisions(this.decisionDeps, runId, decisions);
    return this.resumeChecked(runId, resume, expect, options);
  }

  /**
   * Answers the question of a run paused by a plain `interrupt()` (WAITING_INPUT) and resumes it here
   * (or leaves it QUEUED with `queue`). Checked before anything changes: RUN_NOT_WAITING otherwise.
   */
  async provideInput(runId: string, options: InputOptions): Promise<RunView> {
    return this.answer(runId, options.text, { by: options.by, queue: options.queue });
  }

  /**
   * {@link provideInput} with any JSON value (what `interrupt()` returns; an object keyed by the interrupt's id
   * answers with the value under that key), checked and applied like {@link decide}.
   */
  async answer(runId: string, value: unknown, options: ResumeOptions & { by?: string } = {}): Promise<RunView> {
    const { resume, expect } = await checkInput(this.decisionDeps, runId, value, options.by);
    return this.resumeChecked(runId, resume, expect, options);
  }

  /**
   * Sends LangGraph's `Command({ goto, update })` to a waiting run (see command-resume.ts): `goto: ["__end__"]` ends
   * it without performing its pending actions; any other command runs with the paused tasks asking again. Checked
   * like a decision (APPROVER_NOT_ALLOWED unless `by` may decide every pending action), recorded in the run's events
   * with who sent it and what is not performed, and resumed here (or left QUEUED with `queue`).
   */
  async command(runId: string, command: GraphCommand, options: ResumeOptions & { by?: string; roles?: readonly string[] } = {}): Promise<RunView> {
    const { resume, expect } = await checkCommand(this.decisionDeps, runId, command, options);
    const queued = await queueResume(this.decisionDeps, runId, resume, expect, options.holdMs, { actor: resume.by, reason: commandNote(resume) });
    return options.queue === true ? queued : this.runHere(runId);
  }

  /**
   * Stores a QUEUED run for a host that starts runs itself ({@link start}), its thread made first when it has none,
   * the thread's unfinished runs handled per multitask strategy, and an optional hold against other workers' claims.
   */
  createRun(options: CreateRunOptions): Promise<CreatedRun> {
    return createRun({ runs: this.runs, cancel: (runId, o) => this.cancel(runId, o) }, options);
  }

  /**
   * Validates an answer for a WAITING_INPUT run against its live interrupt and returns what
   * resumes it (pass it to {@link Runtime.start}); nothing changes. For hosts that start runs themselves.
   */
  async inputResume(runId: string, value: unknown, by?: string): Promise<InputResume> {
    return (await checkInput(this.decisionDeps, runId, value, by)).resume;
  }

  /**
   * Cancels a run that has not finished: no new steps, in-flight tools are aborted (here at once, by the process
   * executing it elsewhere within about a second); side effects already done stay done and are listed, calls still
   * in flight as "unknown" ({@link cancelAndWait} waits for them to report). With `expect`, only while the run is
   * still in that state, checked in the cancel's own write (else RUN_NOT_WAITING and nothing changes).
   */
  async cancel(runId: string, options: { by?: string; reason?: string; expect?: ExpectedRunState } = {}): Promise<CanceledRunView> {
    const run = await this.current(runId);
    if (isTerminal(run.status)) {
      throw new UserInputError("RUN_FINISHED", `run ${runId} is already ${run.status}; nothing to cancel`);
    }
    const canceled = await this.runs.cancel(runId, { actor: options.by, reason: options.reason ?? "canceled", expect: options.expect });
    const lease = this.active.get(runId);
    lease?.abort(new LeaseLostError({ runId, token: lease.token, reason: "canceled", status: "CANCELED" }));
    await syncStateChanges(this.runs, await this.deps.recorder(canceled), canceled);
    await this.trace.flush();
    return { ...toRunView(canceled), side_effects: await listSideEffects(this.storage.ledger, runId) };
  }

  /**
   * {@link cancel}, then, for a run that was executing (here or in another process, which notices within about a
   * second), waits until the calls it had in flight report what became of them, up to a few seconds: the answer
   * lists a rollback the cancel stopped in time as not performed and one that completed as done, not both "unknown".
   */
  async cancelAndWait(runId: string, options: { by?: string; reason?: string; timeoutMs?: number } = {}): Promise<CanceledRunView> {
    const status = (await this.current(runId)).status;
    // Read before the cancel: one executing here reports (aborts) right after it.
    const inFlight = status === "RUNNING" || status === "RETRYING" ? await inFlightCalls(this.storage.ledger, runId) : [];
    const canceled = await this.cancel(runId, options);
    if (inFlight.length === 0) return canceled;
    return { ...canceled, side_effects: await settledSideEffects(this.storage.ledger, runId, inFlight, options.timeoutMs) };
  }

  /**
   * Renews now, not at its next heartbeat, the lease of a run executing in this process: a run that
   * another process canceled or took over stops at once. False when the run does not execute here.
   */
  recheckLease(runId: string): boolean {
    const lease = this.active.get(runId);
    if (lease === undefined) return false;
    lease.renew().catch(() => {
      // A lost lease has aborted the run's signal, which is the point; a busy file is retried at the next beat.
    });
    return true;
  }

  /** A worker that claims QUEUED runs from this database and executes them. */
  worker(options: Pick<WorkerOptions, "concurrency" | "once" | "workerId" | "leaseMs" | "pollMs" | "safetyPollMs"> = {}): Worker {
    // A worker executes runs others may stream: it hears their watches from now on (once per process, not per run).
    this.deps.streams?.listen?.();
    return createWorker({
      // On PostgreSQL word of runs queued anywhere wakes it; pollMs then gives way to the slower safetyPollMs.
      ...(this.storage.signals === undefined ? {} : { signals: this.storage.signals }),
      // On PostgreSQL a killed worker's runs are taken over at the next look of any other, not at their lease's end.
      ...(this.storage.liveness === undefined ? {} : { liveness: this.storage.liveness }),
      safetyPollMs: options.safetyPollMs,
      store: this.runs,
      scheduler: this.scheduler,
      workerId: options.workerId,
      concurrency: options.concurrency,
      once: options.once,
      leaseMs: options.leaseMs ?? this.deps.leaseMs,
      pollMs: options.pollMs,
      execute: (run, lease) => this.execute(run, lease),
    });
  }

  /**
   * Hands back every run executing in this process (RETRYING, claimable at once by any worker; the attempt
   * is not counted) and resolves when they have stopped: call it before {@link close} when the host stops,
   * or runs started with submit/start/approve would be left to lease expiry as if the process had crashed.
   * Worker loops hand back their own runs when stopped (`worker.stop({ abort: true })`).
   */
  async handBack(): Promise<void> {
    for (const lease of this.active.values()) lease.abort(new WorkerStoppingError(this.deps.workerId));
    await Promise.allSettled([...this.executions]);
  }

  /**
   * Flushes the trace and closes the database. On SQLite everything is written and closed before it returns;
   * on PostgreSQL await it (the pool ends once the last spans are written).
   */
  close(): Promise<void> {
    return this.storage.close();
  }

  /** Applies a checked resume to the wait it was checked against: here now, or QUEUED (held `holdMs`). */
  private async resumeChecked(runId: string, resume: ApprovalResume[] | InputResume, expect: ExpectedRunState, options: ResumeOptions): Promise<RunView> {
    if (options.queue === true) return queueResume(this.decisionDeps, runId, resume, expect, options.holdMs);
    return this.runHere(runId, resume, expect);
  }

  /** The view of a run; one that ended without success lists the side effects it performed (they stay done). */
  private view(run: RunRecord): Promise<RunView> {
    return runViewOf(this.storage.ledger, run);
  }

  /** The run after the lazy wait-TTL check (an expired wait becomes EXPIRED here, with its trace). */
  private current(runId: string): Promise<RunRecord> {
    return currentRun(this.decisionDeps, runId);
  }

  private async execute(run: RunRecord, lease: RunLease, recorder?: TraceRecorder): Promise<void> {
    this.active.set(run.runId, lease);
    try {
      await executeAndRecord(this.deps, run, lease, recorder);
    } finally {
      if (this.active.get(run.runId) === lease) this.active.delete(run.runId);
    }
  }

  private async runHere(runId: string, resume?: ApprovalResume[] | InputResume, expect?: ExpectedRunState): Promise<RunView> {
    let claimed;
    try {
      claimed = await this.scheduler.claimRun(runId, { workerId: this.deps.workerId, leaseMs: this.deps.leaseMs, resume, expect });
    } catch (error) {
      // The wait's TTL passed since the check (the claim's sweep rolled back with it): expire it, resume nothing.
      const now = await this.current(runId);
      if (error instanceof IllegalTransitionError && resume !== undefined && isTerminal(now.status)) {
        throw new UserInputError("RUN_NOT_WAITING", `run ${runId} is ${now.status}, not waiting`);
      }
      throw error;
    }
    if (claimed === undefined) {
      // Over a cap or running elsewhere: leave it to a worker, with the decision stored.
      if (resume !== undefined && isWaiting((await this.runs.get(runId)).status)) await this.runs.resume(runId, { resume, expect });
      return this.get(runId);
    }
    return this.executeHere(claimed);
  }

  /** Executes a run claimed here under its lease (heartbeats, outcome); `recorder` when its trace has started. */
  private async executeHere(claimed: ClaimedRun, recorder?: TraceRecorder): Promise<RunView> {
    const execution = executeClaimed(claimed, (run, lease) => this.execute(run, lease, recorder), this.storage.signals === undefined ? {} : { signals: this.storage.signals });
    this.executions.add(execution);
    let result: ExecutionResult;
    try {
      result = await execution;
    } finally {
      this.executions.delete(execution);
    }
    if (result.kind === "error") throw result.error;
    return this.view(result.kind === "lost" ? await this.runs.get(claimed.run.runId) : result.run);
  }
}
