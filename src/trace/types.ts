/**
 * The trace data model: one span per unit of work in a run, stored in the
 * `spans` table and mirrored to OpenTelemetry when a tracer provider is set.
 * @module
 */

/** Every kind of span agentrt records, from the run down to single events. */
export const SPAN_KINDS = [
  "invoke_agent",
  "step",
  "model_call",
  "tool_call",
  "approval_wait",
  "input_wait",
  "retry",
  "error_event",
  "state_change",
] as const;

/**
 * What a span stands for. `invoke_agent` is the run (or a sub-agent),
 * `step` one graph step; `state_change` and `error_event` are instants
 * (start equals end).
 */
export type SpanKind = (typeof SPAN_KINDS)[number];

/** `running` until ended; a waiting run keeps its root and wait spans `running`. */
export const SPAN_STATUSES = ["running", "ok", "error", "canceled"] as const;

/** The outcome of a span. */
export type SpanStatus = (typeof SPAN_STATUSES)[number];

/** Free-form attribute values; kept JSON- and OpenTelemetry-compatible. */
export type AttributeValue = string | number | boolean;

/**
 * The typed facts a span may carry. Model calls fill the model fields, tool
 * calls the tool fields; anything else goes into `extra`.
 */
export interface SpanAttributes {
  /** Model name as the provider knows it, e.g. "gpt-4o-mini". */
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Cost in USD; computed from the pricing table when model and tokens are known. */
  costUsd?: number;
  tool?: string;
  /** The model's id for the tool call. */
  toolCallId?: string;
  /** Tool arguments, already redacted (see `recordToolCall`). */
  args?: unknown;
  /** 1 for the first attempt. */
  attempt?: number;
  idempotencyKey?: string;
  /** The id the external system gave the operation. */
  externalOperationId?: string;
  /** Size of the JSON-serialised result, in characters. */
  resultSize?: number;
  /** One-line error message (with code when known). */
  error?: string;
  /** Anything else worth keeping. */
  extra?: Record<string, AttributeValue>;
}

/** One span as stored and as read back by {@link SqliteTraceStore.spans}. */
export interface TraceSpan {
  spanId: string;
  runId: string;
  /** `null` only for a run's root span. */
  parentId: string | null;
  stepId: string | null;
  kind: SpanKind;
  name: string;
  status: SpanStatus;
  /** Epoch milliseconds (fractional). */
  startMs: number;
  /** `null` while running. */
  endMs: number | null;
  graph: string | null;
  agent: string | null;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  tool: string | null;
  toolCallId: string | null;
  args: unknown;
  attempt: number | null;
  idempotencyKey: string | null;
  externalOperationId: string | null;
  resultSize: number | null;
  error: string | null;
  extra: Record<string, AttributeValue>;
}

/** Instant kinds: recorded with start = end, shown as a mark on the timeline. */
export function isInstantKind(kind: SpanKind): boolean {
  return kind === "state_change" || kind === "error_event";
}

/** Where and when a finished call sits in the trace; shared by model and tool call records. */
export interface FinishedSpanFields {
  parentId?: string;
  stepId?: string;
  /** The (sub-)agent that made the call. @default the run's agent */
  agent?: string;
  /** Epoch ms. @default endTime */
  startTime?: number;
  /** Epoch ms. @default now */
  endTime?: number;
  status?: SpanStatus;
  error?: unknown;
  extra?: SpanAttributes["extra"];
}

/** A finished model call for `TraceRecorder.recordModelCall`. */
export interface ModelCallRecord extends FinishedSpanFields {
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** Overrides the priced cost. */
  costUsd?: number;
  /** The agent's model turn (1, 2, …); names the span `model_turn {turn}` and is kept as `extra.turn`. */
  turn?: number;
  /** @default `model_turn {turn}` when the turn is known, else `chat {model}` */
  name?: string;
}

/** A finished tool call for `TraceRecorder.recordToolCall`. */
export interface ToolCallRecord extends FinishedSpanFields {
  tool: string;
  toolCallId?: string;
  /** Raw arguments; `redact` paths are replaced before storing. */
  args?: unknown;
  /** The tool's `redact` list. @default [] */
  redact?: readonly string[];
  /** @default 1 */
  attempt?: number;
  idempotencyKey?: string;
  externalOperationId?: string;
  resultSize?: number;
  /** @default `execute_tool {tool}` */
  name?: string;
}
