/**
 * Live LangGraph stream chunks of the runs this process executes, fanned out
 * to whoever listens (the HTTP server's SSE streams). A listener sees chunks
 * from the moment it subscribes, or, coming back with the number of the last
 * chunk it saw, the chunks after it first (`StreamReplay`: kept for runs someone
 * streamed). A run started with no listener streams only "values" and
 * "updates", which the executor reads to decide the outcome; durable state
 * stays in the checkpoints.
 * A listener may ask for more: LangGraph's "debug", "tasks" and "checkpoints"
 * modes, and "events" (`streamEvents` v2 events, chunk mode "events").
 * @module
 */

import type { RunRecord } from "../runs/index.js";
import type { ExecutionStream, RunStreamSink, StreamableGraph } from "./run-stream-sink.js";
import { StreamOutcome } from "./stream-outcome.js";
import { StreamReplay } from "./stream-replay.js";

/** One chunk as LangGraph yields it with several stream modes: `[mode, payload]`. */
export interface StreamChunk {
  mode: string;
  payload: unknown;
  /** Its number in the run's stream (1, 2, …) when the run is streamed: an SSE event id to resume after. */
  seq?: number;
  /** True when `payload` is in wire (JSON) form already: read from the shared chunk log. */
  wire?: boolean;
}

/** Receives the chunks of one run; must not throw. */
export type StreamListener = (chunk: StreamChunk) => void;

export type { StreamableGraph } from "./run-stream-sink.js";

/** Stream modes a listener may add to the defaults (LangGraph modes, plus "events"). */
export const EXTRA_MODES: ReadonlySet<string> = new Set(["debug", "tasks", "checkpoints", "events"]);

/** Modes a streamed run is executed with unless its listeners ask for more. */
export const DEFAULT_STREAM_MODES: readonly string[] = ["values", "updates", "messages", "custom"];

interface StreamEventLike {
  event: string;
  run_id: string;
  tags?: string[];
  data?: { chunk?: unknown };
}

/** Options of {@link StreamBus}. */
export interface StreamBusOptions {
  /** Stream modes every listened-to run is executed with ("values" and "updates" are always added: the executor reads them). @default ["values", "updates", "messages", "custom"] */
  modes?: readonly string[];
}

/** Fan-out of live stream chunks by run id. */
export class StreamBus implements RunStreamSink {
  /** LangGraph stream modes runs are executed with while this bus is attached. */
  readonly modes: readonly string[];
  private readonly listeners = new Map<string, Set<StreamListener>>();
  private readonly extras = new Map<StreamListener, readonly string[]>();
  private readonly replay = new StreamReplay();

  constructor(options: StreamBusOptions = {}) {
    this.modes = options.modes ?? DEFAULT_STREAM_MODES;
  }

  /** The stream of one execution of `run`, through this bus. */
  open(run: RunRecord): ExecutionStream {
    return {
      stream: (graph, input, options) => this.stream(graph, run.runId, input, options),
      publish: (raw) => this.publish(run.runId, raw),
      end: () => Promise.resolve(),
    };
  }

  /** LangGraph modes to execute a run with: only what the executor reads itself while nobody listens to it. */
  modesFor(runId: string): readonly string[] {
    const set = this.listeners.get(runId);
    if (set === undefined) return [...StreamOutcome.MODES];
    // The executor decides the outcome from "values" and "updates" (StreamOutcome), whatever the bus was given.
    const modes = new Set([...StreamOutcome.MODES, ...this.modes]);
    for (const listener of set) for (const mode of this.extras.get(listener) ?? []) if (mode !== "events") modes.add(mode);
    return [...modes];
  }

  /** True while a listener of the run asked for "events". */
  wantsEvents(runId: string): boolean {
    return [...(this.listeners.get(runId) ?? [])].some((l) => this.extras.get(l)?.includes("events") === true);
  }

  /**
   * Streams a run the way its listeners need: `graph.stream` with {@link modesFor}, or with "events"
   * wanted, `streamEvents` v2 whose root `on_chain_stream` events are unwrapped back into the
   * ordinary chunks and every other event becomes an `["events", event]` chunk.
   */
  async stream(graph: StreamableGraph, runId: string, input: unknown, options: object): Promise<AsyncIterable<unknown>> {
    return streamGraph(graph, input, options, this.modesFor(runId), this.wantsEvents(runId));
  }

  /**
   * Listens to one run's chunks, optionally asking for extra modes; with `after`, first hands over the kept chunks
   * numbered after it (a reconnect). Returns the unsubscribe function.
   */
  subscribe(runId: string, listener: StreamListener, modes: readonly string[] = [], after?: number): () => void {
    this.replay.retain(runId);
    // Handed over and subscribed in one synchronous step: no chunk can fall between the two.
    if (after !== undefined) for (const chunk of this.replay.after(runId, after)) deliver(listener, chunk);
    let set = this.listeners.get(runId);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    const extra = modes.filter((m) => EXTRA_MODES.has(m));
    if (extra.length > 0) this.extras.set(listener, extra);
    return () => {
      set.delete(listener);
      this.extras.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
    };
  }

  /** Delivers a raw chunk of `graph.stream(..., { streamMode: [...] })` to the run's listeners. */
  publish(runId: string, raw: unknown): void {
    const plain = plainChunk(raw);
    if (plain === undefined) return;
    // Kept (and numbered) for a run someone streamed, even while nobody listens: they may come back.
    const chunk = this.replay.append(runId, plain) ?? plain;
    for (const listener of [...(this.listeners.get(runId) ?? [])]) deliver(listener, chunk);
  }

  /** Forgets the kept chunks (the server is closing). */
  close(): void {
    this.replay.clear();
  }
}

/** A raw chunk of `graph.stream(..., { streamMode: [...] })` as mode and payload; undefined for anything else. */
export function plainChunk(raw: unknown): StreamChunk | undefined {
  if (!Array.isArray(raw) || raw.length < 2) return undefined;
  // With subgraphs the chunk is [namespace, mode, payload]; without, [mode, payload].
  return raw.length === 3 ? { mode: String(raw[1]), payload: raw[2] } : { mode: String(raw[0]), payload: raw[1] };
}

/**
 * `graph.stream` with `modes`, or with `events`, `streamEvents` v2 whose root `on_chain_stream` events are unwrapped
 * back into the ordinary chunks and every other event becomes an `["events", event]` chunk.
 */
export async function streamGraph(graph: StreamableGraph, input: unknown, options: object, modes: readonly string[], events: boolean): Promise<AsyncIterable<unknown>> {
  const streamMode = modes.filter((m) => m !== "events");
  if (!events || graph.streamEvents === undefined) return graph.stream(input, { ...options, streamMode });
  return unwrapEvents(graph.streamEvents(input, { ...options, streamMode, version: "v2" }) as AsyncIterable<StreamEventLike>);
}

function deliver(listener: StreamListener, chunk: StreamChunk): void {
  try {
    listener(chunk);
  } catch {
    // A broken listener (a closed socket) must never fail the run.
  }
}

/** The root run's stream events carry the graph's own chunks; the rest are "events" chunks. */
async function* unwrapEvents(events: AsyncIterable<StreamEventLike>): AsyncIterable<unknown> {
  let rootId: string | undefined;
  for await (const event of events) {
    rootId ??= event.run_id;
    if (event.tags?.includes("langsmith:hidden") === true) continue;
    if (event.event === "on_chain_stream" && event.run_id === rootId) yield event.data?.chunk;
    else yield ["events", event];
  }
}
