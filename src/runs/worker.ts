/**
 * A generic worker loop: claims runs up to its concurrency, heartbeats their
 * leases while `execute` runs, and records the outcome with fenced writes.
 * It knows nothing about graphs; the runtime supplies `execute`.
 * @module
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { ClaimRefusals, transientStorageFailure } from "./claim-refusal.js";
import { executeClaimed, reportToStderr, WorkerStoppingError, type ExecuteRun, type ExecutionResult } from "./execute-claimed.js";
import { defaultLeaseMs, type RunLease } from "./lease.js";
import type { RunRecord } from "./run-record.js";
import type { RunSignal, RunSignals } from "./run-signals.js";
import type { RunStore } from "./run-store.js";
import { LagProbe } from "./lag-probe.js";
import { RoomListen } from "./room-listen.js";
import { Scheduler, type SchedulerOptions } from "./scheduler.js";
import { WakeTimes } from "./wake-times.js";
import type { WorkerLiveness } from "./worker-liveness.js";

/** Options of {@link createWorker}. */
export interface WorkerOptions {
  store: RunStore;
  /** Executes one run under its lease; must honour `lease.signal`. */
  execute: ExecuteRun;
  /** @default `worker_<host>_<pid>_<random>` */
  workerId?: string;
  /** Runs executed at once by this worker. @default 1 */
  concurrency?: number;
  /** Lease duration. @default env AGENTRT_LEASE_MS, else 30000 */
  leaseMs?: number;
  /** Heartbeat period. @default leaseMs / 3 */
  heartbeatMs?: number;
  /** Wait between claim attempts when idle, without `signals`. @default 200 */
  pollMs?: number;
  /**
   * Word of runs queued or backing off from any process (PostgreSQL): an idle worker claims when it comes (a run
   * not claimable yet, at its `available_at`), and polls only every `safetyPollMs`. @default none: polls every `pollMs`
   */
  signals?: RunSignals;
  /**
   * With `signals`: the wait between claim attempts when idle, a safety net for lost word and for the runs of a
   * worker that died (their leases expire without a status change, so no signal says they are claimable). @default 5000
   */
  safetyPollMs?: number;
  /**
   * Liveness the database ends with this process (PostgreSQL): held while the loop runs, so when this worker is
   * killed another recovers its runs at its next look (every 2 s) instead of after their leases expire; and
   * every 2 s this worker looks for workers that died and recovers their runs (word of them wakes idle workers).
   * @default none: a dead worker's runs wait for their leases to expire
   */
  liveness?: WorkerLiveness;
  /** Exit when nothing is QUEUED, RETRYING or RUNNING anywhere and no run is active here. @default false */
  once?: boolean;
  /**
   * Claim no more runs (beyond one) while this process's event loop lags more than this (or while the store's
   * connections are all taken, `RunStore.saturated`): its
   * runs would only queue for the CPU, and left QUEUED they can go to a less busy worker. @default 100
   */
  maxLagMs?: number;
  /** Global and per-user caps, or a shared Scheduler. @default no caps */
  scheduler?: SchedulerOptions | Scheduler;
  /** Unexpected errors (not lost leases) go here. @default one line on stderr */
  onError?: (error: unknown, run: RunRecord | undefined) => void;
}

/** What a worker did. */
export interface WorkerStats {
  claimed: number;
  /** Runs whose outcome this worker recorded, by resulting status. */
  finished: Record<string, number>;
  /** Runs whose lease was lost (canceled, taken over) before an outcome was recorded. */
  lost: number;
  /** Runs handed back unfinished by `stop({ abort: true })`. */
  released: number;
}

/** A running worker; see {@link createWorker}. */
export interface Worker {
  readonly workerId: string;
  /** Runs currently executing here. */
  readonly active: number;
  /** Runs the loop; resolves when stopped (or drained, with `once`). */
  run(): Promise<WorkerStats>;
  /** Looks for runs to claim now rather than at the next poll (e.g. another process just queued one). */
  poke(): void;
  /** Stops claiming and waits for active runs; `abort` aborts and releases them instead. */
  stop(options?: { abort?: boolean }): Promise<void>;
}

/**
 * Creates a worker over a run store.
 * @example
 * const worker = createWorker({ store, concurrency: 4, execute: async (run, lease) => ({ status: "SUCCEEDED", result: 42 }) });
 * await worker.run();
 */
export function createWorker(options: WorkerOptions): Worker {
  return new WorkerLoop(options);
}

/** Runs claimed at once before the event loop's lag is looked at again. */
const CLAIM_BURST = 8;
/** Pause between bursts: long enough for the lag probe (10 ms ticks) to see the new runs' load. */
const BURST_PAUSE_MS = 30;
/**
 * Time between two looks for dead workers: a SIGKILLed worker's runs are claimed again within about this (plus a
 * claim), well inside the 10 s issue 36 asks for; each look is one statement reading pg_locks and run_workers.
 */
const LIVENESS_LOOK_MS = 2000;

class WorkerLoop implements Worker {
  readonly workerId: string;
  private readonly store: RunStore;
  private readonly scheduler: Scheduler;
  private readonly settings: Required<Omit<WorkerOptions, "store" | "scheduler" | "workerId" | "signals" | "safetyPollMs" | "liveness">>;
  private readonly signals: RunSignals | undefined;
  private readonly liveness: WorkerLiveness | undefined;
  /** True while a look for dead workers is under way (a slow database): the next tick does not double it. */
  private lookingForDead = false;
  /** Runs heard of that become claimable later: the loop is poked then. */
  private readonly due = new WakeTimes(() => this.poke());
  private readonly lag = new LagProbe();
  // Each run's lease is heartbeaten and watched (a cancel elsewhere stops it within about a second) by executeClaimed.
  private readonly inFlight = new Map<string, { lease: RunLease; done: Promise<void> }>();
  private readonly stats: WorkerStats = { claimed: 0, finished: {}, lost: 0, released: 0 };
  private stopping = false;
  /** Set by stop({ abort: true }): a claim that was under way then is handed back too. */
  private aborting = false;
  private wake: (() => void) | undefined;
  /** Set by a poke during a turn (when there is no pause to end): the loop looks again at once. */
  private poked = false;
  private loop: Promise<WorkerStats> | undefined;
  /** The listen for runs queued, while this worker has room (see listenWhileRoom). */
  private readonly listening: RoomListen;
  /** While the database refuses claims (a full disk, a lost server): nothing is asked of it before the pause ends. */
  private readonly refusals = new ClaimRefusals();

  constructor(options: WorkerOptions) {
    this.store = options.store;
    this.scheduler = options.scheduler instanceof Scheduler ? options.scheduler : new Scheduler(options.store, options.scheduler);
    this.signals = options.signals;
    this.liveness = options.liveness;
    this.workerId = options.workerId ?? `worker_${hostname()}_${process.pid}_${randomBytes(3).toString("hex")}`;
    const leaseMs = options.leaseMs ?? defaultLeaseMs();
    this.settings = {
      execute: options.execute,
      concurrency: options.concurrency ?? 1,
      leaseMs,
      heartbeatMs: options.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3)),
      // Signals make claims prompt: the poll is then only the safety net (see WorkerOptions.safetyPollMs).
      pollMs: options.signals === undefined ? (options.pollMs ?? 200) : (options.safetyPollMs ?? 5000),
      once: options.once ?? false,
      maxLagMs: options.maxLagMs ?? 100,
      onError: options.onError ?? reportToStderr,
    };
    if (!(this.settings.concurrency >= 1)) throw new TypeError("createWorker: concurrency must be at least 1");
    const listener = { onSignal: (signal: RunSignal) => this.heard(signal), onGap: () => this.poke() };
    this.listening = new RoomListen(this.signals, this.settings.once ? "all" : "queued", listener, (error) => this.settings.onError(error, undefined));
  }

  get active(): number {
    return this.inFlight.size;
  }

  run(): Promise<WorkerStats> {
    this.loop ??= this.loopUntilDone();
    return this.loop;
  }

  poke(): void {
    if (this.wake !== undefined) this.wake();
    else this.poked = true;
  }

  async stop(options: { abort?: boolean } = {}): Promise<void> {
    this.stopping = true;
    if (options.abort === true) {
      this.aborting = true;
      for (const { lease } of this.inFlight.values()) lease.abort(new WorkerStoppingError(this.workerId));
    }
    this.wake?.();
    await Promise.all([...this.inFlight.values()].map((entry) => entry.done));
    if (this.loop !== undefined) await this.loop;
  }

  private async loopUntilDone(): Promise<WorkerStats> {
    this.lag.start();
    // Alive before the first claim: a run this worker leases is never under an owner no one can judge dead.
    const release = await this.liveness?.hold(this.workerId);
    const looking = this.liveness === undefined ? undefined : setInterval(() => void this.recoverDead(), LIVENESS_LOOK_MS);
    // The loop keeps the process alive, never its looks for dead workers.
    looking?.unref();
    // Listening before the first look: a run queued after that look is heard.
    await this.listenWhileRoom(false);
    try {
      return await this.loopWhileRunning();
    } finally {
      clearInterval(looking);
      this.listening.stop();
      await release?.();
      this.due.clear();
      this.lag.stop();
    }
  }

  /**
   * Listens for runs queued while this worker has room for one, and not while it is full (it has nothing to do
   * with them). A draining worker (`once`) hears every rest, for as long as it runs.
   */
  private listenWhileRoom(look = true): Promise<unknown> {
    const room = !this.stopping && (this.settings.once || this.inFlight.size < this.settings.concurrency);
    return this.listening.sync(room, look ? () => this.poke() : undefined);
  }

  /** A run changed status somewhere: look for work now if it may be claimable (at its available_at if later). */
  private heard(signal: RunSignal): void {
    // Draining (`once`) waits for runs elsewhere to rest as well as for new ones.
    if (this.settings.once) return this.poke();
    if (signal.status !== "QUEUED" && signal.status !== "RETRYING") return;
    if (signal.availableAt !== undefined && signal.availableAt > Date.now()) this.due.add(signal.availableAt);
    // A full worker claims again when one of its runs ends, not for every run queued meanwhile.
    else if (this.inFlight.size < this.settings.concurrency) this.poke();
  }

  private async loopWhileRunning(): Promise<WorkerStats> {
    while (!this.stopping) {
      this.poked = false;
      const pauseMs = await this.turn();
      if (pauseMs === undefined) break;
      // Word came during the turn (a run queued or ended after its claim looked): look again rather than wait.
      if (this.poked) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pauseMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    await Promise.all([...this.inFlight.values()].map((entry) => entry.done));
    return this.stats;
  }

  /** One look for work: the pause before the next, or undefined when `once` finds nothing left anywhere. */
  private async turn(): Promise<number | undefined> {
    // While the database refuses (a full disk, a lost server) it is not asked again before the pause is over.
    const waitMs = this.refusals.msLeft(Date.now());
    if (waitMs > 0) return waitMs;
    try {
      // A file upgraded by a newer agentrt under a running worker must stop it, not be written wrongly.
      await this.store.assertSchemaCurrent();
    } catch (error) {
      if (!this.refused(error)) throw error;
      return this.refusals.msLeft(Date.now());
    }
    const more = await this.fill();
    if (this.settings.once && this.inFlight.size === 0 && !(await this.hasPendingWork())) return undefined;
    return this.refusals.msLeft(Date.now()) || (more ? Math.min(BURST_PAUSE_MS, this.settings.pollMs) : this.settings.pollMs);
  }

  /** Claims up to the concurrency; true when it stopped early (a burst's end or a lagging loop) with runs maybe left. */
  private async fill(): Promise<boolean> {
    for (let burst = 0; !this.stopping && this.inFlight.size < this.settings.concurrency; burst++) {
      // A saturated event loop or connection pool would only make every run here slower (and a run waiting for a
      // connection must not look like an outage): left QUEUED, runs go to a less busy worker, or here once it eases.
      if (this.inFlight.size > 0 && (burst >= CLAIM_BURST || this.lag.ms > this.settings.maxLagMs || this.store.saturated === true)) return true;
      const claimed = await this.claimNext();
      if (claimed === undefined) return false;
      if (this.aborting) claimed.lease.abort(new WorkerStoppingError(this.workerId));
      this.stats.claimed++;
      const done = executeClaimed(claimed, this.settings.execute, {
        heartbeatMs: this.settings.heartbeatMs,
        onError: this.settings.onError,
        ...(this.signals === undefined ? {} : { signals: this.signals }),
      })
        .then((result) => this.count(result))
        .finally(() => {
          this.inFlight.delete(claimed.run.runId);
          void this.listenWhileRoom();
          this.poke();
        });
      this.inFlight.set(claimed.run.runId, { lease: claimed.lease, done });
      void this.listenWhileRoom();
    }
    return false;
  }

  /**
   * The next run to execute, if any. A claim writes (sweeps, the lease): on a full or failing disk it fails until
   * there is room, and on PostgreSQL until the server answers again, so the worker claims again after a growing
   * pause (see claim-refusal.ts) and says so once, not at every poll.
   */
  private async claimNext(): ReturnType<Scheduler["claimNext"]> {
    if (this.refusals.msLeft(Date.now()) > 0) return undefined;
    try {
      const claimed = await this.scheduler.claimNext({ workerId: this.workerId, leaseMs: this.settings.leaseMs });
      this.refusals.answered();
      return claimed;
    } catch (error) {
      if (!this.refused(error)) this.settings.onError(error, undefined);
      return undefined;
    }
  }

  /** Recovers the runs of workers whose process died (their liveness ended); their RETRYING wakes idle workers. */
  private async recoverDead(): Promise<void> {
    if (this.liveness === undefined || this.lookingForDead || this.refusals.msLeft(Date.now()) > 0) return;
    this.lookingForDead = true;
    try {
      // Without signals no word comes of the runs moved: this worker looks for work at once.
      if ((await this.liveness.recoverDead()) > 0 && this.signals === undefined) this.poke();
    } catch (error) {
      // Their leases still expire; a refusal (the server gone) pauses the claims too, as a claim's would.
      if (!this.refused(error)) this.settings.onError(error, undefined);
    } finally {
      this.lookingForDead = false;
    }
  }

  /** True while work may still arrive; when the database cannot say, true (and the refusal paces the loop). */
  private async hasPendingWork(): Promise<boolean> {
    try {
      return await this.scheduler.hasPendingWork();
    } catch (error) {
      if (!this.refused(error)) this.settings.onError(error, undefined);
      return true;
    }
  }

  /** Records `error` as a refusal when a later attempt may succeed (reported at the first of a series); false otherwise. */
  private refused(error: unknown): boolean {
    const failure = transientStorageFailure(error);
    if (failure === undefined) return false;
    if (this.refusals.refused(Date.now())) this.settings.onError(failure, undefined);
    return true;
  }

  private count(result: ExecutionResult): void {
    if (result.kind === "recorded") this.stats.finished[result.run.status] = (this.stats.finished[result.run.status] ?? 0) + 1;
    else if (result.kind === "lost") this.stats.lost++;
    else if (result.kind === "released") this.stats.released++;
  }
}
