/**
 * The trace module as its callers see it, whatever the backend: recorders for runs, and spans and statistics read
 * back. Recording is synchronous and in memory; a flush writes the batch (on SQLite before the call returns, so a
 * flush inside a caller's SQLite transaction commits with it).
 * @module
 */
import type { PricingTable } from "./pricing.js";
import type { TraceRecorder } from "./recorder.js";
import type { StatsOptions, TraceStats } from "./stats.js";
import type { AttributeValue, SpanKind, TraceSpan } from "./types.js";
import type { SpanWriterOptions } from "./writer.js";

/** How a trace store records. */
export interface TraceStoreOptions extends SpanWriterOptions {
  /** Prices that override or extend the built-in table. @default {} */
  pricing?: PricingTable;
  /** Time source in epoch ms. @default performance.timeOrigin + performance.now() */
  clock?: () => number;
  /** Longest stored argument JSON. @default 2000 */
  maxArgsChars?: number;
  /** Mirror spans to OpenTelemetry when a tracer provider is registered. @default true */
  otel?: boolean;
}

/** What a recorder needs to know about the run. */
export interface RecorderOptions {
  /** Graph id, e.g. "ops_rollback"; used by `stats --graph`. */
  graph?: string;
  /** Agent name for `gen_ai.agent.name`. @default graph, else "agent" */
  agent?: string;
  /** Start of the run in epoch ms (ignored when re-attaching). @default now */
  startTime?: number;
  /** Extra attributes on the root span. */
  extra?: Record<string, AttributeValue>;
  /**
   * Called with the recorder before it is handed out (a claim's state changes): on SQLite inside the transaction
   * that creates the root span, so the spans it marks commit with the root, in one commit instead of two.
   */
  init?: (recorder: TraceRecorder) => void;
}

/** Spans of every run in one database (SQLite file or PostgreSQL schema). */
export interface TraceStore {
  /** The pricing table in effect (built-in prices with the user's on top). */
  readonly pricing: PricingTable;
  /**
   * The recorder of `runId`. The first call creates the run's root span; later calls, in this or another process,
   * re-attach to it, so a resumed run continues one trace. A recorder live in this process is shared, and what it
   * knows of spans other processes stored (open waits, state changes) is read again.
   */
  recorder(runId: string, options?: RecorderOptions): Promise<TraceRecorder>;
  /** Every span of a run, parents before children, in start order. Empty when the run has no trace. */
  spans(runId: string): Promise<TraceSpan[]>;
  /** How many spans of one kind a run has stored (pending writes included), without reading them. */
  countSpans(runId: string, kind: SpanKind): Promise<number>;
  /** Whether any span of this run is stored. */
  hasRun(runId: string): Promise<boolean>;
  /** Latency, failure, retry, token and cost statistics over stored spans. */
  stats(options?: StatsOptions): Promise<TraceStats>;
  /** Writes everything pending; never rejects (a failed write is reported through `onError`). */
  flush(): Promise<void>;
}
