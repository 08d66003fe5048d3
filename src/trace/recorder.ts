/**
 * The recorder one run writes its spans through. Starting and ending a span
 * touches memory only; the shared {@link SpanWriter} writes rows in batches.
 * @module
 */
import { randomBytes } from "node:crypto";
import { applyAttributes, errorText, type ApplyOptions } from "./apply-attributes.js";
import type { OtelBridge } from "./otel.js";
import type { PricingTable } from "./pricing.js";
import { emptyRow, type SpanRow } from "./rows.js";
import {
  isInstantKind,
  type ModelCallRecord,
  type SpanAttributes,
  type SpanKind,
  type SpanStatus,
  type ToolCallRecord,
  type TraceSpan,
} from "./types.js";
import type { SpanSink } from "./writer.js";
import { OpenSpan, type EndSpanOptions, type SpanHandle, type SpanOps } from "./span-handle.js";

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
  /** How many `state_change` spans a run has as stored. */
  countStateChanges: (runId: string) => number;
}

const TERMINAL: Partial<Record<string, SpanStatus>> = { SUCCEEDED: "ok", FAILED: "error", CANCELED: "canceled", EXPIRED: "canceled" };
const WAIT_KIND: Partial<Record<string, "approval_wait" | "input_wait">> = { WAITING_APPROVAL: "approval_wait", WAITING_INPUT: "input_wait" };

/** Options of {@link TraceRecorder.recordStateChange}. */
export interface StateChangeOptions {
  /** Why the run moved, e.g. the error of a FAILED run. */
  reason?: string;
  /** Epoch ms. @default now */
  at?: number;
  /** Name of the wait span opened by entering a waiting status, e.g. "approval_wait rollback_deployment". @default the wait kind */
  waitName?: string;
}

/** Writes the spans of one run; obtained from {@link TraceStore.recorder}. */
export class TraceRecorder {
  /** The run this recorder writes for. */
  readonly runId: string;
  /** Span id of the run's root (`invoke_agent`) span, shared by every process that records the run. */
  readonly rootId: string;
  /** True when the root span already existed (the run is continuing, perhaps in another process). */
  readonly resumed: boolean;
  readonly #parts: RecorderParts;
  readonly #open = new Map<string, SpanRow>();
  readonly #idPrefix = randomBytes(6).toString("hex");
  #seq = 0;
  readonly #applyOptions: ApplyOptions;
  #otel: OtelBridge | undefined;
  #otelClosed = false;
  /** Depth of {@link batch} calls under way; while above 0, urgent marks and flushes wait for the outermost to end. */
  #batchDepth = 0;
  /** The flush the outermost batch owes its callers (resolved with the writer's flush when the batch ends). */
  #owed: { promise: Promise<void>; resolve: (written: Promise<void>) => void } | undefined;

  constructor(parts: RecorderParts) {
    this.#parts = parts;
    this.runId = parts.root.run_id;
    this.rootId = parts.root.span_id;
    this.resumed = parts.resumed;
    this.#open.set(this.rootId, parts.root);
    this.#applyOptions = { pricing: parts.pricing, maxArgsChars: parts.maxArgsChars };
    this.#otel = parts.startOtel(parts.resumed);
  }

  /** Opens a span. Parallel branches simply hold several open spans at once. */
  startSpan(options: StartSpanOptions): SpanHandle {
    const { root, clock } = this.#parts;
    // After a wait or close, the run continues here: open a continuation OTel segment.
    if (this.#otelClosed) {
      this.#otelClosed = false;
      this.#otel = this.#parts.startOtel(true);
    }
    const parentId = options.parentId ?? this.rootId;
    const spanId = `${this.#idPrefix}${(++this.#seq).toString(36).padStart(4, "0")}`;
    const row = emptyRow({ span_id: spanId, run_id: this.runId, kind: options.kind, name: options.name, start_ms: options.startTime ?? clock() });
    row.parent_id = parentId;
    const inherited = options.kind === "step" ? spanId : (this.#openRow(parentId)?.step_id ?? null);
    row.step_id = options.stepId ?? inherited;
    row.graph = root.graph;
    row.agent = options.agent ?? root.agent;
    if (options.attributes !== undefined) this.#apply(row, options.attributes, options.redact);
    const instant = isInstantKind(options.kind);
    if (instant) {
      row.status = row.error === null ? "ok" : "error";
      row.end_ms = row.start_ms;
    } else {
      this.#open.set(spanId, row);
    }
    this.#otel?.started(row, instant);
    // A wait usually precedes the process exiting; it must be on disk first.
    const urgent = options.kind === "approval_wait" || options.kind === "input_wait" || options.kind === "state_change";
    this.#mark(row, urgent);
    return this.#handle(row);
  }

  /** Opens a `step` span under the root; its id is the step id of everything under it unless `stepId` is given. */
  startStep(name: string, options: Omit<StartSpanOptions, "kind" | "name"> = {}): SpanHandle {
    return this.startSpan({ ...options, kind: "step", name });
  }

  /** Records a finished model call in one go; cost comes from the pricing table. Returns the span id. */
  recordModelCall(call: ModelCallRecord): string {
    const end = call.endTime ?? this.#parts.clock();
    const span = this.startSpan({
      kind: "model_call",
      name: call.name ?? modelCallName(call),
      parentId: call.parentId,
      stepId: call.stepId,
      agent: call.agent,
      startTime: call.startTime ?? end,
      attributes: {
        model: call.model, inputTokens: call.inputTokens, outputTokens: call.outputTokens, costUsd: call.costUsd,
        extra: call.turn === undefined ? call.extra : { ...call.extra, turn: call.turn },
      },
    });
    span.end({ endTime: end, error: call.error, status: call.status });
    return span.id;
  }

  /** Records a finished tool call (arguments redacted by `redact`). Returns the span id. */
  recordToolCall(call: ToolCallRecord): string {
    const end = call.endTime ?? this.#parts.clock();
    const { tool, toolCallId, args, attempt, idempotencyKey, externalOperationId, resultSize, extra } = call;
    const span = this.startSpan({
      kind: "tool_call",
      name: call.name ?? `execute_tool ${tool}`,
      parentId: call.parentId,
      stepId: call.stepId,
      agent: call.agent,
      startTime: call.startTime ?? end,
      redact: call.redact,
      attributes: { tool, toolCallId, args, attempt: attempt ?? 1, idempotencyKey, externalOperationId, resultSize, extra },
    });
    span.end({ endTime: end, error: call.error, status: call.status });
    return span.id;
  }

  /**
   * Records a lifecycle transition as an instant under the root. Entering
   * WAITING_APPROVAL / WAITING_INPUT opens an `approval_wait` / `input_wait`
   * span; any other status ends every such span still open, whichever process
   * opened it. A terminal status (SUCCEEDED, FAILED, CANCELED, EXPIRED) also
   * ends the root span.
   */
  recordStateChange(from: string, to: string, options: StateChangeOptions = {}): string {
    // Its span, the waits it ends or opens and the root's new status go out in one write.
    return this.batch(() => this.#recordStateChange(from, to, options));
  }

  #recordStateChange(from: string, to: string, options: StateChangeOptions): string {
    const at = options.at ?? this.#parts.clock();
    const extra = { from, to, ...(options.reason === undefined ? {} : { reason: options.reason }) };
    const span = this.startSpan({ kind: "state_change", name: `${from} → ${to}`, startTime: at, attributes: { extra } });
    const terminal = TERMINAL[to];
    const enteredWait = WAIT_KIND[to];
    // Keyed on `to` alone: a wait also ends when the caller reports the transition from a stale `from`.
    const status = terminal === undefined || terminal === "ok" ? "ok" : "canceled";
    for (const open of this.openSpans()) {
      if ((open.kind === "approval_wait" || open.kind === "input_wait") && open.kind !== enteredWait) {
        this.endSpan(open.spanId, { endTime: at, status });
      }
    }
    if (enteredWait !== undefined && to !== from) {
      this.startSpan({ kind: enteredWait, name: options.waitName ?? enteredWait, startTime: at, attributes: options.reason === undefined ? {} : { extra: { reason: options.reason } } });
    }
    const root = this.#parts.root;
    applyAttributes(root, { extra: { "run.status": to } }, this.#applyOptions);
    if (terminal !== undefined) this.end({ status: terminal, endTime: at });
    else this.#mark(root, true);
    // Waiting or finished: the process may exit or move on, so export what this segment has.
    if (terminal !== undefined || enteredWait !== undefined) void this.close();
    return span.id;
  }

  /** Records an error as an instant under `parentId` (default the root). */
  recordError(error: unknown, options: { parentId?: string; stepId?: string; at?: number } = {}): string {
    const name = error instanceof Error ? error.name : "error";
    return this.startSpan({ kind: "error_event", name, parentId: options.parentId, stepId: options.stepId, startTime: options.at, attributes: { error: errorText(error) } }).id;
  }

  /**
   * Ends a span by id, including one another process started (an approval
   * wait opened before the process exited). Returns false when no such open span exists.
   */
  endSpan(spanId: string, options: EndSpanOptions = {}): boolean {
    const row = this.#openRow(spanId);
    if (row === undefined) return false;
    this.#end(row, options);
    // Written at once: a later lookup by id reads the disk, which must not still say "running".
    void this.flush();
    return true;
  }

  /** Spans of this run still running, from any process, oldest first (e.g. the wait to close on resume). */
  openSpans(kind?: SpanKind): TraceSpan[] {
    // The store's lookup sees rows marked but not yet written, so inside a batch nothing needs writing first.
    if (this.#batchDepth === 0) void this.flush();
    return this.#parts.openSpans(this.runId).filter((s) => s.spanId !== this.rootId && (kind === undefined || s.kind === kind));
  }

  /** Ends the run's root span and writes everything pending. */
  end(options: EndSpanOptions = {}): void {
    this.#end(this.#parts.root, options);
  }

  /**
   * How many lifecycle transitions (`state_change` spans) the run has recorded, by any process: what
   * the runtime compares with the run's event log to record each transition once.
   */
  countStateChanges(): number {
    if (this.#batchDepth === 0) void this.flush();
    return this.#parts.countStateChanges(this.runId);
  }

  /**
   * Writes every pending span now (call before the process exits or hands the run on); never rejects. On SQLite the
   * write is done when this returns (inside a caller's transaction, it commits with it).
   */
  flush(): Promise<void> {
    if (this.#batchDepth > 0) return this.#owe();
    return this.#parts.writer.flush();
  }

  /**
   * Runs `fn` (synchronous) with the writes it asks for held until it returns, then written together: one commit
   * for what would have been several (a state change's span, the root's status, the spans pending before it).
   * Flushes asked for inside resolve once that write is done.
   */
  batch<T>(fn: () => T): T {
    this.#batchDepth++;
    try {
      return fn();
    } finally {
      if (--this.#batchDepth === 0 && this.#owed !== undefined) {
        const owed = this.#owed;
        this.#owed = undefined;
        owed.resolve(this.#parts.writer.flush());
      }
    }
  }

  #owe(): Promise<void> {
    if (this.#owed === undefined) {
      let resolve!: (written: Promise<void>) => void;
      const promise = new Promise<void>((r) => {
        resolve = (written) => r(written);
      });
      this.#owed = { promise, resolve };
    }
    return this.#owed.promise;
  }

  /** Marks `row` for the writer; an urgent mark inside a batch is written when the batch ends. */
  #mark(row: SpanRow, urgent: boolean): void {
    if (urgent && this.#batchDepth > 0) {
      this.#parts.writer.mark(row, false);
      void this.#owe();
    } else {
      this.#parts.writer.mark(row, urgent);
    }
  }

  /**
   * Flushes, ends this process's OpenTelemetry spans (the SQLite rows of
   * spans still open, like an approval wait, stay `running` for the next
   * process) and lets the store forget this recorder. Done automatically when
   * the run enters a waiting or terminal status; recording again afterwards
   * still works (a new OpenTelemetry segment is opened). Resolves when the flush is written.
   */
  close(): Promise<void> {
    const flushed = this.flush();
    this.#otel?.close([...this.#open.values()].reverse(), this.#parts.clock());
    this.#otel = undefined;
    this.#otelClosed = true;
    this.#parts.release();
    return flushed;
  }

  /** An open span of this run: ours, or one another process left open (adopted so it ends once). */
  #openRow(spanId: string): SpanRow | undefined {
    const local = this.#open.get(spanId);
    if (local !== undefined) return local;
    const stored = this.#parts.load(spanId);
    if (stored === undefined || stored.run_id !== this.runId || stored.status !== "running") return undefined;
    this.#open.set(spanId, stored);
    return stored;
  }

  #handle(row: SpanRow): SpanHandle {
    return new OpenSpan(row, this.#ops);
  }

  // Shared by every handle: closures per span would be allocated on the hot path.
  readonly #ops: SpanOps = {
    apply: (row, attributes) => this.#apply(row, attributes),
    end: (row, options) => this.#end(row, options),
  };

  #end(row: SpanRow, options: EndSpanOptions): void {
    if (row.status !== "running" && row.span_id !== this.rootId) return;
    if (options.attributes !== undefined) this.#apply(row, options.attributes);
    if (options.error !== undefined) row.error = errorText(options.error);
    row.status = options.status ?? (options.error === undefined ? "ok" : "error");
    row.end_ms = options.endTime ?? this.#parts.clock();
    this.#open.delete(row.span_id);
    this.#otel?.ended(row);
    // The run's end is written at once; everything else rides the next batch (≤ flushDelayMs later).
    this.#mark(row, row.kind === "invoke_agent");
  }

  #apply(row: SpanRow, attributes: SpanAttributes, redact?: readonly string[]): void {
    const options = this.#applyOptions;
    applyAttributes(row, attributes, redact === undefined || redact.length === 0 ? options : { ...options, redact });
  }
}

/** The tree label of a model call: the seed's `model_turn N` when the turn is known, else `chat {model}`. */
function modelCallName(call: ModelCallRecord): string {
  const turn = call.turn ?? call.extra?.turn;
  return typeof turn === "number" ? `model_turn ${turn}` : `chat ${call.model}`;
}
