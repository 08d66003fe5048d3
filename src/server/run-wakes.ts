/**
 * Wake-ups of the server's waiters (runs.wait, join, streams) per run: a run that rests in this process wakes
 * them through its event; one that another process changed is heard as a signal (PostgreSQL's NOTIFY) or, on
 * SQLite, noticed by one shared poll of the file.
 *
 * Safety nets: with signals the shared poll still runs, every {@link SIGNALED_POLL_MS}, for word that never came
 * (a listener that loses its connection hears a gap and wakes everyone at once, so this is for what cannot be
 * seen); without them it is the only way and runs every {@link POLL_MS}.
 * @module
 */
import type { LeaseState, RunSignals } from "../runs/index.js";

/** A report that a run rested, with its final values when the execution that ended it sent them. */
export interface RestReport {
  values?: Record<string, unknown>;
}

/** What a waiter last read of its run: the poll wakes it only once the run's status or lease has moved on. */
export interface SeenState {
  status: string;
  fencingToken: number;
}

/** What woke a waiter: a rest report, or (undefined) just "look again". */
type Wake = (report?: RestReport) => void;

/** The shared poll's period without signals (SQLite: a read of the file's data_version). */
const POLL_MS = 250;
/** The shared poll's period with signals: only a safety net. */
export const SIGNALED_POLL_MS = 3000;
/** Waiters are woken at least this often, whatever the polls see. */
const WAKE_ALL_MS = 5000;
/** How long final values reported while no waiter waited are kept for the next (the server's REST_GRACE_MS). */
const KEEP_REPORT_MS = 1000;

/** Options of {@link RunWakes}. */
export interface RunWakesOptions {
  /** Word of other processes' changes (PostgreSQL); undefined: the shared poll alone. */
  signals?: RunSignals;
  /** With signals, the shared poll's period. @default {@link SIGNALED_POLL_MS} */
  safetyPollMs?: number;
  /**
   * The status and lease of the given runs, in one read: when another connection wrote, the poll wakes only the
   * waiters whose run moved on from what they saw. Undefined: every waiter looks again (one read each).
   */
  states?: (runIds: readonly string[]) => Promise<LeaseState[]>;
}

const key = (s: SeenState) => `${s.status}:${s.fencingToken}`;

/** The waiters of each run, and the one timer (and listener) that watches other processes' writes for them. */
export class RunWakes {
  private readonly watchers = new Map<string, Set<Wake>>();
  /** Per watched run, what its waiters read of it (absent: unknown, or they disagree: woken by any foreign write). */
  private readonly seen = new Map<string, string>();
  private readonly states: RunWakesOptions["states"];
  private foreignTimer: NodeJS.Timeout | undefined;
  private seenVersion = -1;
  private lastWakeAll = 0;
  private readonly signals: RunSignals | undefined;
  private readonly pollMs: number;
  private readonly wakeAllMs: number;
  /** Per watched run (and a while after), its listen's stop. */
  private readonly listens = new Map<string, Promise<(() => void) | undefined>>();
  private closed = false;
  /**
   * Final values of runs that ended while none of their waiters was waiting (one was reading the run, woken by a
   * signal that can overtake this process's own report): the next wait takes them, within {@link KEEP_REPORT_MS}.
   */
  private readonly unclaimed = new Map<string, RestReport>();

  /** `dataVersion`: changes whenever another connection committed to the file; undefined once it is closed. */
  constructor(private readonly dataVersion: () => Promise<number | undefined>, options: RunWakesOptions = {}) {
    this.signals = options.signals;
    this.states = options.states;
    this.pollMs = this.signals === undefined ? POLL_MS : (options.safetyPollMs ?? SIGNALED_POLL_MS);
    this.wakeAllMs = Math.max(WAKE_ALL_MS, this.pollMs);
  }

  /** Wakes the waiters of one run to look at it again. */
  notify(runId: string): void {
    this.wake(runId, undefined);
  }

  /** The run came to rest (committed); `values`: its final state, when the execution that ended it sent them. */
  rested(runId: string, values?: Record<string, unknown>): void {
    if (values !== undefined && !this.watchers.has(runId)) {
      this.unclaimed.set(runId, { values });
      setTimeout(() => this.unclaimed.delete(runId), KEEP_REPORT_MS).unref();
    }
    this.wake(runId, values === undefined ? {} : { values });
  }

  /** True when final values of `runId` reported while none of its waiters waited are kept for the next {@link next}. */
  holdsReport(runId: string): boolean {
    return this.unclaimed.has(runId);
  }

  /** Stops watching for other processes' writes. */
  close(): void {
    this.closed = true;
    if (this.foreignTimer !== undefined) clearTimeout(this.foreignTimer);
    this.foreignTimer = undefined;
    this.unlistenIdle();
  }

  private wake(runId: string, report: RestReport | undefined): void {
    const set = this.watchers.get(runId);
    if (set === undefined) return;
    this.watchers.delete(runId);
    this.seen.delete(runId);
    for (const wake of set) wake(report);
  }

  private wakeAll(): void {
    for (const runId of [...this.watchers.keys()]) this.notify(runId);
  }

  /**
   * The next wake of `runId`'s waiters (a rest report, or undefined for any other), or the abort, or `timeoutMs`.
   * `seen`: what the waiter read of the run just before, so another process's writes to other runs do not wake it.
   */
  next(runId: string, signal?: AbortSignal, timeoutMs?: number, seen?: SeenState): Promise<RestReport | undefined> {
    const kept = this.unclaimed.get(runId);
    if (kept !== undefined) {
      this.unclaimed.delete(runId);
      return Promise.resolve(kept);
    }
    return new Promise((resolve) => {
      let set = this.watchers.get(runId);
      if (set === undefined) {
        set = new Set();
        this.watchers.set(runId, set);
        if (seen !== undefined) this.seen.set(runId, key(seen));
      } else if (seen === undefined || this.seen.get(runId) !== key(seen)) {
        this.seen.delete(runId);
      }
      const owner = set;
      const watchers = this.watchers;
      const seenStates = this.seen;
      function done(report?: RestReport): void {
        owner.delete(done);
        // The last waiter of a run gone (aborted, timed out): its run is no longer watched.
        if (owner.size === 0 && watchers.get(runId) === owner) {
          watchers.delete(runId);
          seenStates.delete(runId);
        }
        signal?.removeEventListener("abort", aborted);
        if (timer !== undefined) clearTimeout(timer);
        resolve(report);
      }
      const aborted = () => done();
      const timer = timeoutMs === undefined ? undefined : setTimeout(aborted, timeoutMs);
      set.add(done);
      signal?.addEventListener("abort", aborted);
      this.listen(runId);
      this.watchForeign();
    });
  }

  /**
   * Listens to a watched run's own word (its bucket's channel on PostgreSQL): a signal wakes its waiters, a gap all
   * of them. A run's listen outlives a wake (its waiters wait again at once) and ends at the first safety poll that
   * finds no waiter of it left.
   */
  private listen(runId: string): void {
    if (this.signals === undefined || this.listens.has(runId) || this.closed) return;
    this.listens.set(runId, this.signals.listen({ onSignal: (signal) => this.notify(signal.runId), onGap: () => this.wakeAll() }, { runId }).then(
      (stop) => {
        // A change committed before the LISTEN took effect was not heard: the run's waiters look once more.
        this.notify(runId);
        return stop;
      },
      () => undefined,
    ));
  }

  /** Ends the listens of runs no one waits for any more (all of them once closed). */
  private unlistenIdle(): void {
    for (const [runId, stop] of this.listens) {
      if (!this.closed && this.watchers.has(runId)) continue;
      this.listens.delete(runId);
      void stop.then((unlisten) => unlisten?.());
    }
  }

  private async checkForeign(): Promise<void> {
    let version: number | undefined;
    try {
      version = this.watchers.size === 0 ? undefined : await this.dataVersion();
    } catch {
      // A busy or closing database: looked at again at the next tick.
      version = this.seenVersion;
    }
    if (version !== undefined) {
      const now = Date.now();
      if (now - this.lastWakeAll >= this.wakeAllMs) {
        this.seenVersion = version;
        this.lastWakeAll = now;
        this.wakeAll();
      } else if (version !== this.seenVersion) {
        this.seenVersion = version;
        await this.wakeMoved();
      }
    }
    this.unlistenIdle();
    // The timer stays set until these reads are done, so reads never overlap.
    this.foreignTimer = undefined;
    if (this.watchers.size > 0 && !this.closed) this.watchForeign();
  }

  /**
   * Wakes the waiters of runs that moved on from what they saw (one read for all), and those whose view is unknown.
   * At 200 waiting runs.wait with worker processes writing all the time, waking every waiter (a read each) on
   * every poll was ~10 % of the server process's time, for runs whose rests the workers report anyway.
   */
  private async wakeMoved(): Promise<void> {
    const ids = [...this.watchers.keys()];
    const known = ids.filter((id) => this.seen.has(id));
    let states: LeaseState[] | undefined;
    try {
      states = this.states === undefined || known.length === 0 ? undefined : await this.states(known);
    } catch {
      states = undefined;
    }
    const now = new Map(states?.map((s) => [s.runId, key(s)]));
    for (const id of ids) {
      const was = this.seen.get(id);
      // Unknown view, unknown run (or the read failed): look again; otherwise only when it changed.
      if (states === undefined || was === undefined || now.get(id) !== was) this.notify(id);
    }
  }

  /**
   * Runs finished by another process send no event here. One shared timer (not one per waiter)
   * wakes every waiter when another connection has written (PRAGMA data_version moved), and every
   * few seconds regardless; a server alone on its file does no reads for its waiters.
   */
  private watchForeign(): void {
    if (this.foreignTimer !== undefined) return;
    this.foreignTimer = setTimeout(() => {
      void this.checkForeign();
    }, this.pollMs);
    this.foreignTimer.unref();
  }
}
