/**
 * What the viewer's live stream sends: the runs (newest first) whose status or usage moved since the
 * last look. One shared timer serves every open viewer and reads nothing while the file is unchanged.
 * @module
 */
import type { RunRecord } from "../../runs/index.js";
import { toRunView, type RunView } from "../../runtime/index.js";
import type { RunRecords } from "../../runtime/run-records.js";

/** How many of the newest runs the viewer lists and watches. */
export const WATCHED_RUNS = 200;

/** Called with the runs that changed since the last call. */
export type RunChangeListener = (changed: RunView[]) => void;

/** Watches the newest runs for a set of listeners; polls only while someone listens. */
export class RunChanges {
  private readonly listeners = new Set<RunChangeListener>();
  private timer: NodeJS.Timeout | undefined;
  private fileVersion = "";
  private seen = new Map<string, string>();
  /** The first look of a listening period, which the first poll compares against. */
  private first: Promise<void> = Promise.resolve();

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
    this.schedule();
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stops the timer. */
  close(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.listeners.size === 0) return;
      this.poll().then(
        (open) => {
          if (open) this.schedule();
        },
        // A busy file: looked at again at the next tick.
        () => this.schedule(),
      );
    }, this.intervalMs);
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
