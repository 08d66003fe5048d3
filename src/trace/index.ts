/**
 * Tracing: spans of runs (SQLite, PostgreSQL), model pricing, the text tree, and the
 * OpenTelemetry mirror.
 * @module
 */
export { openTraceStore, SqliteTraceStore } from "./sqlite-store.js";
export { openPostgresTraceStore, openPostgresTraceReader, PostgresTraceStore } from "./postgres-store.js";
export { openTraceReader } from "./open-trace-reader.js";
export type { TraceStore, TraceStoreOptions, RecorderOptions } from "./trace-store.js";
export { TraceRecorder } from "./recorder.js";
export type { StartSpanOptions, StateChangeOptions } from "./recorder.js";
export type { EndSpanOptions, SpanHandle } from "./span-handle.js";
export { SPAN_KINDS, SPAN_STATUSES, isInstantKind } from "./types.js";
export type { SpanKind, SpanStatus, SpanAttributes, AttributeValue, TraceSpan, ModelCallRecord, ToolCallRecord } from "./types.js";
export { DEFAULT_PRICING, SCRIPTED_MODEL, priceFor, lookupPrice, resolvePricing, loadPricingFile } from "./pricing.js";
export type { ModelPrice, PricingTable, TokenUsage, Cost } from "./pricing.js";
export { redactArgs, REDACTED } from "./redact.js";
export { renderTraceTree } from "./render.js";
export type { RenderOptions } from "./render.js";
export { percentile } from "./stats.js";
export type { StatsOptions, TraceStats, ToolStats, GraphStats, RunStats, UsageTotals } from "./stats.js";
export { spanToJson } from "./rows.js";
export { TRACE_SCHEMA } from "./schema.js";
export { TRACE_PG_SCHEMA } from "./postgres-schema.js";
export { formatCost, formatDuration, formatTokens, formatRate } from "./format.js";
