/**
 * Where the executor sends the stream chunks of a run it executes: the in-process StreamBus (SQLite, one server
 * process), or the shared chunk log (PostgreSQL: any process may stream the run). Each execution opens its own
 * stream, which picks the LangGraph modes the run is executed with and hears every raw chunk.
 * @module
 */
import type { RunRecord } from "../runs/index.js";

/** A graph that can be streamed: `stream`, and `streamEvents` for the "events" mode. */
export interface StreamableGraph {
  stream(input: unknown, options: object): Promise<AsyncIterable<unknown>>;
  streamEvents?(input: unknown, options: object): AsyncIterable<unknown>;
}

/** The stream of one execution of a run. */
export interface ExecutionStream {
  /** Streams the graph with the modes its listeners need ("values" and "updates" always: the executor reads them). */
  stream(graph: StreamableGraph, input: unknown, options: object): Promise<AsyncIterable<unknown>>;
  /** Hears one raw chunk of that stream; never throws. */
  publish(raw: unknown): void;
  /** The execution's stream ended: resolves once what was published is durable (before the run's status changes). */
  end(): Promise<void>;
}

/** Opens the stream of each execution. */
export interface RunStreamSink {
  open(run: RunRecord): ExecutionStream;
  /** This process will execute runs others may stream (it runs a worker): start hearing who streams which. */
  listen?(): void;
}
