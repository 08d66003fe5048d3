/**
 * The chunks of one execution of a watched run, on their way to the chunk log: encoded to wire form at once,
 * appended in batches (at each step's "values" chunk, after {@link FLUSH_MS}, or every {@link FLUSH_CHUNKS}
 * chunks; never one round trip per token), one flush at a time, and flushed a last time when the execution ends.
 * An execution of a run nobody watches writes nothing; one whose watch arrives mid-run publishes from then on.
 * @module
 */
import { connectionFailure } from "../db/index.js";
import type { RunRecord } from "../runs/index.js";
import type { ExecutionStream, StreamableGraph } from "../runtime/run-stream-sink.js";
import { DEFAULT_STREAM_MODES, EXTRA_MODES, plainChunk, streamGraph } from "../runtime/stream-bus.js";
import { StreamOutcome } from "../runtime/stream-outcome.js";
import { chunkToWire } from "./chunk-wire.js";
import type { ChunkLog } from "./chunk-log.js";

/** Longest a chunk waits for its batch. */
const FLUSH_MS = 20;
/** A batch this large is written at once. */
const FLUSH_CHUNKS = 64;
/** Chunks kept for a log that keeps refusing them (the database is down); older ones are dropped first. */
const MAX_PENDING = 10_000;

/** One execution's stream, published to the chunk log while the run is watched. */
export class RunPublication implements ExecutionStream {
  #on = false;
  #used = false;
  #pending: { mode: string; payload: unknown }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  /** `watchOf`: the run's watch modes once the publisher is listening (undefined: nobody streams it); `ended`: called once. */
  constructor(
    private readonly log: ChunkLog,
    private readonly run: RunRecord,
    private readonly watchOf: () => Promise<readonly string[] | undefined>,
    private readonly ended: () => void,
  ) {}

  /** Someone streams the run now: its chunks are published from the next one on. */
  start(): void {
    this.#on = true;
    this.#used = true;
  }

  async stream(graph: StreamableGraph, input: unknown, options: object): Promise<AsyncIterable<unknown>> {
    const watched = this.run.config?.stream?.modes ?? (await this.watchOf());
    if (watched === undefined) return streamGraph(graph, input, options, StreamOutcome.MODES, false);
    this.start();
    const modes = new Set([...StreamOutcome.MODES, ...DEFAULT_STREAM_MODES, ...watched.filter((m) => EXTRA_MODES.has(m))]);
    return streamGraph(graph, input, options, [...modes], modes.has("events"));
  }

  publish(raw: unknown): void {
    if (!this.#on) return;
    const chunk = plainChunk(raw);
    if (chunk === undefined) return;
    let payload: unknown;
    try {
      payload = chunkToWire(chunk.mode, chunk.payload);
    } catch {
      return; // A payload that cannot be put in JSON is skipped, as the SSE writer skips it.
    }
    this.#pending.push({ mode: chunk.mode, payload });
    if (this.#pending.length > MAX_PENDING) this.#pending.shift();
    // A root "values" chunk closes a step: its readers see the step now.
    if (this.#pending.length >= FLUSH_CHUNKS || (chunk.mode === "values" && Array.isArray(raw) && raw.length === 2)) void this.flush(false);
    else this.#timer ??= setTimeout(() => void this.flush(false), FLUSH_MS);
  }

  async end(): Promise<void> {
    this.ended();
    // Nothing was published: nothing to write, not even the rest mark (an unstreamed run pays nothing).
    if (this.#used) await this.flush(true);
  }

  /** Appends what is pending, after the flush before it; a failed append keeps its chunks for the next one. */
  private flush(rested: boolean): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing = this.#flushing.then(async () => {
      const batch = this.#pending.splice(0);
      if (batch.length === 0 && !rested) return;
      try {
        await this.log.append(this.run.runId, batch, rested);
      } catch (error) {
        // The stream is never the run's failure. A lost connection keeps the chunks for the next flush (the last one
        // drops them); any other refusal (a payload the database will not store) drops this batch alone, else it
        // would fail every later flush with it and the rest of the stream would be lost.
        if (!rested && connectionFailure(error) !== undefined) this.#pending.unshift(...batch);
      }
    });
    return this.#flushing;
  }
}
