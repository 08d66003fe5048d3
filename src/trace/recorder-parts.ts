/**
 * What a {@link TraceRecorder} is built from and the options its methods take.
 * @module
 */
import type { OtelBridge } from "./otel.js";
import type { PricingTable } from "./pricing.js";
import type { SpanRow } from "./rows.js";
import type { SpanAttributes, SpanKind, SpanStatus, TraceSpan } from "./types.js";
import type { SpanSink } from "./writer.js";

/** What a span starts with. */
export interface StartSpanOptions {
  kind: SpanKind;
  /** Shown in the tree, e.g. "model_turn 1" or "execute_tool get_order". */
  name: string;
  /** @default the run's root span */
  parentId?: string;
  /** @default the parent's step id (a `step` span defaults to its own id) */
  stepId?: string;
  /** Epoch ms. @default now */
  startTime?: number;
  attributes?: SpanAttributes;
  /** Argument paths replaced by "[redacted]" before `attributes.args` is stored. @default [] */
  redact?: readonly string[];
  /** The (sub-)agent the span belongs to. @default the run's agent */
  agent?: string;
}

/** Recorder internals the store hands over. */
export interface RecorderParts {
  root: SpanRow;
  resumed: boolean;
  writer: SpanSink;
  /** Starts this process's OpenTelemetry segment of the run; undefined when tracing is off. */
  startOtel: (resumed: boolean) => OtelBridge | undefined;
  /** Called when the recorder lets go of the run (closed, waiting or finished). */
  release: () => void;
  pricing: PricingTable;
  clock: () => number;
  maxArgsChars: number;
  /** Reads a span row another recorder (maybe another process) wrote. */
  load: (spanId: string) => SpanRow | undefined;
  /** Running spans of a run as stored. */
  openSpans: (runId: string) => TraceSpan[];
  /** Running `approval_wait` and `input_wait` rows of a run as stored (pending rows laid over them), oldest first. */
  openWaits: (runId: string) => SpanRow[];
  /** How many `state_change` spans a run has as stored. */
  countStateChanges: (runId: string) => number;
}

/** Options of {@link TraceRecorder.recordStateChange}. */
export interface StateChangeOptions {
  /** Why the run moved, e.g. the error of a FAILED run. */
  reason?: string;
  /** Epoch ms. @default now */
  at?: number;
  /** Name of the wait span opened by entering a waiting status, e.g. "approval_wait rollback_deployment". @default the wait kind */
  waitName?: string;
}

/** The root span's status a terminal run status ends it with. */
export const TERMINAL: Partial<Record<string, SpanStatus>> = { SUCCEEDED: "ok", FAILED: "error", CANCELED: "canceled", EXPIRED: "canceled" };
/** The wait span a waiting status opens. */
export const WAIT_KIND: Partial<Record<string, "approval_wait" | "input_wait">> = { WAITING_APPROVAL: "approval_wait", WAITING_INPUT: "input_wait" };
