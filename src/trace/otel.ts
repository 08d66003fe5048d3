/**
 * Mirrors recorded spans to OpenTelemetry with the GenAI semantic conventions
 * (`invoke_agent {agent}`, `chat {model}`, `execute_tool {tool}`). Does nothing
 * unless a tracer provider is registered: the root span then is not recording
 * and the bridge switches itself off for the whole recorder.
 * @module
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  context,
  trace,
  type Attributes,
  type Context,
  type Span,
} from "@opentelemetry/api";
import { packageVersion } from "../version.js";
import type { SpanRow } from "./rows.js";

/** Root-row attributes that let another process continue the same OpenTelemetry trace. */
export const OTEL_TRACE_ID = "otel.trace_id";
/** See {@link OTEL_TRACE_ID}. */
export const OTEL_SPAN_ID = "otel.span_id";

const OPERATION: Partial<Record<string, string>> = {
  invoke_agent: "invoke_agent",
  model_call: "chat",
  tool_call: "execute_tool",
};

/** The OpenTelemetry side of one recorder: one OTel span per open agentrt span. */
export class OtelBridge {
  readonly #open = new Map<string, Span>();
  readonly #root: Span;

  private constructor(root: Span) {
    this.#root = root;
  }

  /**
   * Starts the OTel span for this process's part of the run. A resumed run
   * gets a continuation `invoke_agent` span whose parent is the first
   * process's root (ids kept on the root row), so the whole run is one trace.
   * Returns undefined when tracing is off.
   */
  static start(root: SpanRow, extra: Record<string, unknown>, resumed: boolean, now: number): OtelBridge | undefined {
    const tracer = trace.getTracer("agentrt", packageVersion());
    const parent = remoteParent(extra) ?? context.active();
    const attributes = { ...otelAttributes(root), ...(resumed ? { "agentrt.resumed": true } : {}) };
    const span = tracer.startSpan(
      otelName(root),
      { kind: SpanKind.INTERNAL, startTime: resumed ? now : root.start_ms, attributes },
      parent,
    );
    if (!span.isRecording()) return undefined;
    const bridge = new OtelBridge(span);
    bridge.#open.set(root.span_id, span);
    return bridge;
  }

  /** Trace and span id of this process's root span, for {@link OTEL_TRACE_ID}. */
  rootIds(): { traceId: string; spanId: string } {
    const { traceId, spanId } = this.#root.spanContext();
    return { traceId, spanId };
  }

  /** Opens the OTel span of a recorded span; instants become events on their parent. */
  started(row: SpanRow, instant: boolean): void {
    const parent = (row.parent_id === null ? undefined : this.#open.get(row.parent_id)) ?? this.#root;
    if (instant) {
      addInstantEvent(parent, row);
      return;
    }
    const kind = row.kind === "model_call" ? SpanKind.CLIENT : SpanKind.INTERNAL;
    const tracer = trace.getTracer("agentrt", packageVersion());
    const span = tracer.startSpan(otelName(row), { kind, startTime: row.start_ms, attributes: otelAttributes(row) }, trace.setSpan(ROOT_CONTEXT, parent));
    this.#open.set(row.span_id, span);
  }

  /** Closes the OTel span of an ended span, with its final attributes and status. */
  ended(row: SpanRow): void {
    const span = this.#open.get(row.span_id);
    if (span === undefined) return;
    this.#open.delete(row.span_id);
    finish(span, row, row.end_ms ?? undefined);
  }

  /** Ends every span still open (waits outlive the process); the rows stay running in SQLite. */
  close(openRows: Iterable<SpanRow>, now: number): void {
    for (const row of openRows) {
      const span = this.#open.get(row.span_id);
      if (span === undefined) continue;
      this.#open.delete(row.span_id);
      span.setAttribute("agentrt.span.open", true);
      finish(span, row, now);
    }
  }
}

function finish(span: Span, row: SpanRow, endTime: number | undefined): void {
  span.setAttributes(otelAttributes(row));
  if (row.status === "error") {
    span.setStatus({ code: SpanStatusCode.ERROR, message: row.error ?? undefined });
    span.setAttribute("error.type", errorType(row.error));
  }
  span.end(endTime);
}

function addInstantEvent(parent: Span, row: SpanRow): void {
  const extra = parseExtra(row.extra_json);
  if (row.kind === "error_event") {
    parent.addEvent("exception", { "exception.message": row.error ?? row.name, "exception.type": errorType(row.error) }, row.start_ms);
  } else {
    const attrs: Attributes = { "agentrt.run.id": row.run_id };
    for (const [key, value] of Object.entries(extra)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") attrs[`agentrt.${key}`] = value;
    }
    parent.addEvent(`agentrt.${row.kind}`, attrs, row.start_ms);
  }
}

/** The span name the GenAI conventions prescribe: `{operation} {target}`. */
export function otelName(row: SpanRow): string {
  if (row.kind === "model_call") return row.model === null ? "chat" : `chat ${row.model}`;
  if (row.kind === "tool_call") return row.tool === null ? "execute_tool" : `execute_tool ${row.tool}`;
  if (row.kind === "invoke_agent") return `invoke_agent ${row.agent ?? row.name}`;
  return row.name;
}

/** GenAI semantic-convention attributes plus agentrt's run, step and cost. */
export function otelAttributes(row: SpanRow): Attributes {
  const a: Attributes = { "agentrt.run.id": row.run_id, "agentrt.span.kind": row.kind };
  const operation = OPERATION[row.kind];
  if (operation !== undefined) a["gen_ai.operation.name"] = operation;
  if (row.step_id !== null) a["agentrt.step.id"] = row.step_id;
  if (row.graph !== null) a["agentrt.graph"] = row.graph;
  if (row.agent !== null) a["gen_ai.agent.name"] = row.agent;
  if (row.model !== null) a["gen_ai.request.model"] = row.model;
  if (row.input_tokens !== null) a["gen_ai.usage.input_tokens"] = row.input_tokens;
  if (row.output_tokens !== null) a["gen_ai.usage.output_tokens"] = row.output_tokens;
  if (row.cost_usd !== null) a["agentrt.cost.usd"] = row.cost_usd;
  if (row.tool !== null) {
    a["gen_ai.tool.name"] = row.tool;
    a["gen_ai.tool.type"] = "function";
  }
  if (row.tool_call_id !== null) a["gen_ai.tool.call.id"] = row.tool_call_id;
  if (row.attempt !== null) a["agentrt.tool.attempt"] = row.attempt;
  if (row.idempotency_key !== null) a["agentrt.tool.idempotency_key"] = row.idempotency_key;
  if (row.external_op_id !== null) a["agentrt.tool.external_operation_id"] = row.external_op_id;
  if (row.result_size !== null) a["agentrt.tool.result_size"] = row.result_size;
  return a;
}

function remoteParent(extra: Record<string, unknown>): Context | undefined {
  const traceId = extra[OTEL_TRACE_ID];
  const spanId = extra[OTEL_SPAN_ID];
  if (typeof traceId !== "string" || typeof spanId !== "string") return undefined;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

function errorType(error: string | null): string {
  const code = error === null ? undefined : /\[([A-Z_]+)\]$/.exec(error)?.[1];
  return code ?? "_OTHER";
}

function parseExtra(json: string | null): Record<string, unknown> {
  return json === null ? {} : (JSON.parse(json) as Record<string, unknown>);
}
