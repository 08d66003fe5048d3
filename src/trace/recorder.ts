/**
 * The recorder one run writes its spans through. Starting and ending a span
 * touches memory only; the shared {@link SpanWriter} writes rows in batches.
 * @module
 */
import { applyAttributes, errorText, type ApplyOptions } from "./apply-attributes.js";
import type { OtelBridge } from "./otel.js";
import { HeldWrites } from "./held-writes.js";
import { ProvisionalMarks } from "./provisional.js";
import { TERMINAL, WAIT_KIND, type RecorderParts, type StartSpanOptions, type StateChangeOptions } from "./recorder-parts.js";
import { modelCallStart, toolCallStart, type CallSpanStart } from "./call-spans.js";
import { emptyRow, type SpanRow } from "./rows.js";
import { isInstantKind, type ModelCallRecord, type SpanKind, type SpanAttributes, type ToolCallRecord, type TraceSpan } from "./types.js";
import { OpenSpan, type EndSpanOptions, type SpanHandle, type SpanOps } from "./span-handle.js";
import { randomHex } from "./random-hex.js";

export type { RecorderParts, StartSpanOptions, StateChangeOptions } from "./recorder-parts.js";

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
  readonly #idPrefix = randomHex(6);
  #seq = 0;
  readonly #applyOptions: ApplyOptions;
  #otel: OtelBridge | undefined;
  #otelClosed = false;
  readonly #held: HeldWrites;
  /** Set while {@link provisionally} runs: what goes outside the database waits for the commit. */
  #provisional: ProvisionalMarks | undefined;

  constructor(parts: RecorderParts) {
    this.#parts = parts;
    this.runId = parts.root.run_id;
    this.rootId = parts.root.span_id;
    this.resumed = parts.resumed;
    this.#open.set(this.rootId, parts.root);
    this.#applyOptions = { pricing: parts.pricing, maxArgsChars: parts.maxArgsChars };
    this.#held = new HeldWrites(parts.writer);
    this.#otel = parts.startOtel(parts.resumed);
  }

  /** Opens a span. Parallel branches simply hold several open spans at once. */
  startSpan(options: StartSpanOptions): SpanHandle {
    const { root, clock } = this.#parts;
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
    if (this.#provisional === undefined) this.#otelStarted(row, instant);
    else this.#provisional.defer(() => this.#otelStarted(row, instant));
    // A wait usually precedes the process exiting; it must be on disk first.
    const urgent = options.kind === "approval_wait" || options.kind === "input_wait" || options.kind === "state_change";
    this.#held.mark(row, urgent);
    return this.#handle(row);
  }

  /** Opens a `step` span under the root; its id is the step id of everything under it unless `stepId` is given. */
  startStep(name: string, options: Omit<StartSpanOptions, "kind" | "name"> = {}): SpanHandle {
    return this.startSpan({ ...options, kind: "step", name });
  }

  /** Records a finished model call in one go; cost comes from the pricing table. Returns the span id. */
  recordModelCall(call: ModelCallRecord): string {
    return this.#recordCall(modelCallStart(call, call.endTime ?? this.#parts.clock()), call);
  }

  /** Records a finished tool call (arguments redacted by `redact`). Returns the span id. */
  recordToolCall(call: ToolCallRecord): string {
    return this.#recordCall(toolCallStart(call, call.endTime ?? this.#parts.clock()), call);
  }

  #recordCall(start: CallSpanStart, call: ModelCallRecord | ToolCallRecord): string {
    const span = this.startSpan(start);
    span.end({ endTime: start.endTime, error: call.error, status: call.status });
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
    // Rows as the store has them (this process's pending ones included): no span objects built, no root read.
    for (const wait of this.#parts.openWaits(this.runId)) {
      if (wait.kind === enteredWait) continue;
      // Ours, or one another process left open (adopted so it ends once).
      const row = this.#open.get(wait.span_id) ?? wait;
      this.#open.set(row.span_id, row);
      this.#end(row, { endTime: at, status });
    }
    if (enteredWait !== undefined && to !== from) {
      this.startSpan({ kind: enteredWait, name: options.waitName ?? enteredWait, startTime: at, attributes: options.reason === undefined ? {} : { extra: { reason: options.reason } } });
    }
    const root = this.#parts.root;
    applyAttributes(root, { extra: { "run.status": to } }, this.#applyOptions);
    if (terminal !== undefined) this.end({ status: terminal, endTime: at });
    else this.#held.mark(root, true);
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
    if (!this.#held.holding) void this.flush();
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
    if (!this.#held.holding) void this.flush();
    return this.#parts.countStateChanges(this.runId);
  }

  /**
   * Writes every pending span now (call before the process exits or hands the run on); never rejects. On SQLite the
   * write is done when this returns (inside a caller's transaction, it commits with it).
   */
  flush(): Promise<void> {
    return this.#held.flush();
  }

  /**
   * Runs `fn` (synchronous) with the writes it asks for held until it returns, then written together: one commit
   * for what would have been several (a state change's span, the root's status, the spans pending before it).
   * Flushes asked for inside resolve once that write is done.
   */
  batch<T>(fn: () => T): T {
    return this.#held.run(fn);
  }

  /**
   * Runs `fn` (synchronous) inside a caller's SQLite transaction that may roll back (a run's outcome with its trace
   * end, in one commit): its rows are written in that transaction, OpenTelemetry and the store's letting go wait for
   * `commit()`, and `rollback()` puts the recorder back as it was (its marks dropped, what was pending marked
   * again), so it can record the same later. Call `commit` or `rollback` once the transaction has ended.
   */
  provisionally(fn: () => void): ProvisionalMarks {
    const writer = this.#parts.writer;
    const marks = new ProvisionalMarks({ runId: this.runId, root: this.#parts.root, open: this.#open, writer });
    this.#provisional = marks;
    // Other runs' pending rows are not this transaction's to take with it if it rolls back.
    const scope = writer.only(this.runId);
    try {
      fn();
    } catch (error) {
      marks.rollback();
      throw error;
    } finally {
      this.#provisional = undefined;
      writer.only(scope);
    }
    return marks;
  }

  /**
   * Forgets a recorder whose root was written in a caller's transaction that rolled back (a claim that did not
   * commit): its unwritten rows are dropped, the store lets go of it and nothing of it is exported.
   */
  discard(): void {
    const writer = this.#parts.writer;
    for (const row of writer.pendingOf(this.runId)) writer.forget(row);
    this.#open.clear();
    this.#otel = undefined;
    this.#parts.release();
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
    if (this.#provisional === undefined) this.#closeOtel();
    else this.#provisional.defer(() => this.#closeOtel());
    return flushed;
  }

  #closeOtel(): void {
    this.#otel?.close([...this.#open.values()].reverse(), this.#parts.clock());
    this.#otel = undefined;
    this.#otelClosed = true;
    this.#parts.release();
  }

  #otelStarted(row: SpanRow, instant: boolean): void {
    // After a wait or close, the run continues here: open a continuation OTel segment.
    if (this.#otelClosed) {
      this.#otelClosed = false;
      this.#otel = this.#parts.startOtel(true);
    }
    this.#otel?.started(row, instant);
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
    if (this.#provisional === undefined) this.#otel?.ended(row);
    else this.#provisional.defer(() => this.#otel?.ended(row));
    // The run's end is written at once; everything else rides the next batch (≤ flushDelayMs later).
    this.#held.mark(row, row.kind === "invoke_agent");
  }

  #apply(row: SpanRow, attributes: SpanAttributes, redact?: readonly string[]): void {
    const options = this.#applyOptions;
    applyAttributes(row, attributes, redact === undefined || redact.length === 0 ? options : { ...options, redact });
  }
}
