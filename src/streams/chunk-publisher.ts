/**
 * The executing side of streaming across processes (see chunk-log.ts): the stream sink a runtime on PostgreSQL
 * executes runs with. It knows which runs are watched — from the run's own config (created by a streaming
 * endpoint), from the watches in the log when it starts, and from every watch announced since — so an execution
 * publishes from its first chunk when someone streams the run, and from the moment a join's watch arrives otherwise.
 * @module
 */
import type { RunRecord } from "../runs/index.js";
import type { RunStreamSink } from "../runtime/run-stream-sink.js";
import type { ChunkLog, RunWatch } from "./chunk-log.js";
import { RunPublication } from "./run-publication.js";

/** Watches remembered; the oldest heard is forgotten first (the log keeps them all). */
const MAX_KNOWN = 50_000;

/** Publishes the chunks of watched runs this process executes to the chunk log. */
export class ChunkPublisher implements RunStreamSink {
  readonly #known = new Map<string, readonly string[]>();
  readonly #executing = new Map<string, Set<RunPublication>>();
  #listening: Promise<void> | undefined;
  #subscribed: Promise<void> | undefined;

  constructor(private readonly log: ChunkLog) {}

  open(run: RunRecord): RunPublication {
    const publication: RunPublication = new RunPublication(this.log, run, () => this.#watchOf(run.runId), () => {
      const set = this.#executing.get(run.runId);
      set?.delete(publication);
      if (set?.size === 0) this.#executing.delete(run.runId);
    });
    let set = this.#executing.get(run.runId);
    if (set === undefined) this.#executing.set(run.runId, (set = new Set()));
    set.add(publication);
    return publication;
  }

  /**
   * Hears watches from now on: the ones in the log, then each announced. Called when the runtime starts a worker, so
   * the one-time LISTEN and load are paid by a worker process's start, never by a run (a one-off `submit` without a
   * worker knows only the runs streamed through the streaming endpoint, by their config).
   */
  listen(): void {
    this.#listening ??= this.#listen().catch(() => {
      // The database refused: runs execute unpublished meanwhile, and the next execution tries again (#watchOf).
      this.#listening = undefined;
    });
  }

  /** The modes the run's watchers asked for, once the watches are known; undefined when nobody watches it. */
  async #watchOf(runId: string): Promise<readonly string[] | undefined> {
    if (this.#listening !== undefined) {
      await this.#listening;
      // Failed meanwhile: try again for the next execution.
      if (this.#listening === undefined) this.listen();
    }
    return this.#known.get(runId);
  }

  async #listen(): Promise<void> {
    // Subscribed once: a load that failed is tried again (next execution) without adding another listener.
    this.#subscribed ??= this.log.onWatch({ onWatch: (watch) => this.#heard(watch), onGap: () => void this.#load().catch(() => undefined) })
      .then(() => undefined, (error: unknown) => {
        this.#subscribed = undefined;
        throw error;
      });
    await this.#subscribed;
    await this.#load();
  }

  async #load(): Promise<void> {
    for (const watch of await this.log.watches()) this.#heard(watch);
  }

  #heard(watch: RunWatch): void {
    this.#known.delete(watch.runId);
    this.#known.set(watch.runId, watch.modes);
    if (this.#known.size > MAX_KNOWN) this.#known.delete(this.#known.keys().next().value ?? "");
    for (const publication of this.#executing.get(watch.runId) ?? []) publication.start();
  }
}
