/**
 * `agentrt/trace` — the spans every run records (model calls, tool calls, steps, waits), their store, pricing,
 * statistics and the text rendering `agentrt trace` prints. Spans also go to OpenTelemetry when it is set up.
 * @module
 */
export {
  openTraceStore, SqliteTraceStore, TraceRecorder, priceFor, lookupPrice, resolvePricing, loadPricingFile, DEFAULT_PRICING,
  SCRIPTED_MODEL, redactArgs, renderTraceTree, SPAN_KINDS,
} from "../trace/index.js";
export type {
  TraceStore, TraceStoreOptions, RecorderOptions, StartSpanOptions, EndSpanOptions, SpanHandle, ModelCallRecord, ToolCallRecord,
  SpanKind, SpanStatus, SpanAttributes, TraceSpan, ModelPrice, PricingTable, TokenUsage, Cost, RenderOptions,
  StatsOptions, TraceStats, ToolStats, GraphStats, RunStats, UsageTotals,
} from "../trace/index.js";
