/**
 * Live LangGraph stream chunks of the runs this process executes, fanned out
 * to whoever listens (the HTTP server's SSE streams). Nothing is buffered:
 * a listener sees chunks from the moment it subscribes (a run started with
 * no listener streams only "updates"); durable state stays in the checkpoints.
 * @module
 */

/** One chunk as LangGraph yields it with several stream modes: `[mode, payload]`. */
export interface StreamChunk {
  mode: string;
  payload: unknown;
}

/** Receives the chunks of one run; must not throw. */
export type StreamListener = (chunk: StreamChunk) => void;

/** Options of {@link StreamBus}. */
export interface StreamBusOptions {
  /** Stream modes every run is executed with. @default ["values", "updates", "messages", "custom"] */
  modes?: readonly string[];
}

/** Fan-out of live stream chunks by run id. */
export class StreamBus {
  /** LangGraph stream modes runs are executed with while this bus is attached. */
  readonly modes: readonly string[];
  private readonly listeners = new Map<string, Set<StreamListener>>();

  constructor(options: StreamBusOptions = {}) {
    this.modes = options.modes ?? ["values", "updates", "messages", "custom"];
  }

  /** Modes to execute a run with: only "updates" (the cheapest) while nobody listens to it. */
  modesFor(runId: string): readonly string[] {
    return this.listeners.has(runId) ? this.modes : ["updates"];
  }

  /** Listens to one run's chunks; returns the unsubscribe function. */
  subscribe(runId: string, listener: StreamListener): () => void {
    let set = this.listeners.get(runId);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
    };
  }

  /** Delivers a raw chunk of `graph.stream(..., { streamMode: [...] })` to the run's listeners. */
  publish(runId: string, raw: unknown): void {
    const set = this.listeners.get(runId);
    if (set === undefined || !Array.isArray(raw) || raw.length < 2) return;
    // With subgraphs the chunk is [namespace, mode, payload]; without, [mode, payload].
    const chunk: StreamChunk = raw.length === 3 ? { mode: String(raw[1]), payload: raw[2] } : { mode: String(raw[0]), payload: raw[1] };
    for (const listener of [...set]) {
      try {
        listener(chunk);
      } catch {
        // A broken listener (a closed socket) must never fail the run.
      }
    }
  }
}
