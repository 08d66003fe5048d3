/**
 * Wake-ups of the server's waiters (runs.wait, join, streams) per run: a run that rests in this process wakes
 * them through its event; one that another process finished is noticed by one shared poll of the file.
 * @module
 */
/** A report that a run rested, with its final values when the execution that ended it sent them. */
export interface RestReport {
  values?: Record<string, unknown>;
}

/** What woke a waiter: a rest report, or (undefined) just "look again". */
type Wake = (report?: RestReport) => void;

/** The waiters of each run, and the one timer that watches other processes' writes for them. */
export class RunWakes {
  private readonly watchers = new Map<string, Set<Wake>>();
  private foreignTimer: NodeJS.Timeout | undefined;
  private seenVersion = -1;
  private lastWakeAll = 0;

  /** `dataVersion`: changes whenever another connection committed to the file; undefined once it is closed. */
  constructor(private readonly dataVersion: () => Promise<number | undefined>) {}

  /** Wakes the waiters of one run to look at it again. */
  notify(runId: string): void {
    this.wake(runId, undefined);
  }

  /** The run came to rest (committed); `values`: its final state, when the execution that ended it sent them. */
  rested(runId: string, values?: Record<string, unknown>): void {
    this.wake(runId, values === undefined ? {} : { values });
  }

  /** Stops watching for other processes' writes. */
  close(): void {
    if (this.foreignTimer !== undefined) clearTimeout(this.foreignTimer);
    this.foreignTimer = undefined;
  }

  private wake(runId: string, report: RestReport | undefined): void {
    const set = this.watchers.get(runId);
    if (set === undefined) return;
    this.watchers.delete(runId);
    for (const wake of set) wake(report);
  }

  /** The next wake of `runId`'s waiters (a rest report, or undefined for any other), or the abort, or `timeoutMs`. */
  next(runId: string, signal?: AbortSignal, timeoutMs?: number): Promise<RestReport | undefined> {
    return new Promise((resolve) => {
      let set = this.watchers.get(runId);
      if (set === undefined) {
        set = new Set();
        this.watchers.set(runId, set);
      }
      const owner = set;
      function done(report?: RestReport): void {
        owner.delete(done);
        signal?.removeEventListener("abort", aborted);
        if (timer !== undefined) clearTimeout(timer);
        resolve(report);
      }
      const aborted = () => done();
      const timer = timeoutMs === undefined ? undefined : setTimeout(aborted, timeoutMs);
      set.add(done);
      signal?.addEventListener("abort", aborted);
      this.watchForeign();
    });
  }

  private async checkForeign(): Promise<void> {
    let version: number | undefined;
    try {
      version = this.watchers.size === 0 ? undefined : await this.dataVersion();
    } catch {
      // A busy or closing database: looked at again at the next tick.
      version = this.seenVersion;
    }
    // The timer stays set until this read is done, so reads never overlap.
    this.foreignTimer = undefined;
    if (version === undefined) return;
    const now = Date.now();
    if (version !== this.seenVersion || now - this.lastWakeAll >= 5000) {
      this.seenVersion = version;
      this.lastWakeAll = now;
      for (const runId of [...this.watchers.keys()]) this.notify(runId);
    }
    this.watchForeign();
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
    }, 250);
    this.foreignTimer.unref();
  }
}
