/**
 * What the viewer's live stream sends: the runs (newest first) whose status or usage moved since the
 * last look. One shared timer serves every open viewer and reads nothing while the file is unchanged.
 * On PostgreSQL a status change committed anywhere (its signal) makes it look at once; the timer stays, since
 * usage moving (steps, tokens) sends no signal.
 * @module
 */
import type { RunRecord } from "../../runs/index.js";
import { toRunView, type RunView } from "../../runtime/index.js";
import type { RunRecords } from "../../runtime/run-records.js";

/** How many of the newest runs the viewer lists and watches. */
export const WATCHED_RUNS = 200;
/** A burst of signals (many runs changing together) is looked at once, this long after the first. */
const SIGNAL_GATHER_MS = 50;

/** Called with the runs that changed since the last call. */
export type RunChangeListener = (changed: RunView[]) => void;

/** Watches the newest runs for a set of listeners; polls only while someone listens. */
export class RunChanges {
  private readonly listeners = new Set<RunChangeListener>();
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (ms since epoch). */
  private dueAt = 0;
  private fileVersion = "";
  private seen = new Map<string, string>();
  /** The first look of a listening period, which the first poll compares against. */
  private first: Promise<void> = Promise.resolve();
  /** True while a look is under way: word that comes meanwhile asks for another right after it. */
  private polling = false;
  private pollAgain = false;
  private unlisten: Promise<(() => void) | undefined> | undefined;

  constructor(private readonly runs: RunRecords, private readonly intervalMs = 300) {}

  /** Adds a listener; returns its removal. */
  subscribe(listener: RunChangeListener): () => void {
    if (this.listeners.size === 0) {
      this.first = this.snapshot().then(
        (seen) => {
          this.seen = seen;
        },
        () => undefined,
      );
    }
    this.listeners.add(listener);
    this.listen();
    this.schedule();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopListening();
    };
  }

  /** Stops the timer. */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
    this.stopListening();
  }

  /** While someone watches: a run's signal (or a gap in them) makes the next look come now. */
  private listen(): void {
    const signals = this.runs.signals;
    if (signals === undefined || this.unlisten !== undefined) return;
    this.unlisten = signals.listen({ onSignal: () => this.lookNow(), onGap: () => this.lookNow() }).catch(() => undefined);
  }

  private stopListening(): void {
    void this.unlisten?.then((stop) => stop?.());
    this.unlisten = undefined;
  }

  private lookNow(): void {
    if (this.listeners.size === 0) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    // Brought forward only when the armed look is later: re-armed at every signal, a busy cluster's signals (less
    // than the gather time apart) would put the look off for as long as they keep coming.
    if (this.timer !== undefined && this.dueAt <= Date.now() + SIGNAL_GATHER_MS) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule(SIGNAL_GATHER_MS);
  }

  private schedule(delayMs = this.intervalMs): void {
    if (this.timer !== undefined) return;
    this.dueAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.listeners.size === 0) return;
      this.polling = true;
      this.pollAgain = false;
      const next = (open: boolean) => {
        this.polling = false;
        if (open) this.schedule(this.pollAgain ? SIGNAL_GATHER_MS : this.intervalMs);
      };
      this.poll().then(
        next,
        // A busy file: looked at again at the next tick.
        () => next(true),
      );
    }, delayMs);
    this.timer.unref();
  }

  /** Sends what changed; false once the file is closed (the timer stops). */
  private async poll(): Promise<boolean> {
    await this.first;
    const version = await this.runs.changeStamp();
    if (version === undefined) return false;
    if (version === this.fileVersion) return true;
    this.fileVersion = version;
    const before = this.seen;
    const records = await this.runs.list({ order: "newest", limit: WATCHED_RUNS });
    this.seen = new Map(records.map((r) => [r.runId, signature(r)]));
    const changed = records.filter((r) => before.get(r.runId) !== this.seen.get(r.runId)).map(toRunView);
    if (changed.length > 0) for (const listener of this.listeners) listener(changed);
    return true;
  }

  private async snapshot(): Promise<Map<string, string>> {
    return new Map((await this.runs.list({ order: "newest", limit: WATCHED_RUNS })).map((r) => [r.runId, signature(r)]));
  }
}

function signature(run: RunRecord): string {
  return `${run.status}:${run.updatedAt}:${run.usage.steps}`;
}
