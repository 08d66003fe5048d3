/** The OpenTelemetry segment of a recorder, started from its root row; shared by both trace stores. */
import { OTEL_SPAN_ID, OTEL_TRACE_ID, OtelBridge } from "./otel.js";
import type { SpanRow } from "./rows.js";

/**
 * Starts this process's OpenTelemetry segment of the run (undefined when `otel` is off or no provider is set).
 * The first segment keeps its ids on the root row and calls `saveRoot`, so later processes join the same trace.
 */
export function startRootOtel(
  root: SpanRow, continuation: boolean, options: { otel?: boolean }, clock: () => number, saveRoot: () => void,
): OtelBridge | undefined {
  if (options.otel === false) return undefined;
  const extra = root.extra_json === null ? {} : (JSON.parse(root.extra_json) as Record<string, unknown>);
  const otel = OtelBridge.start(root, extra, continuation, clock());
  if (otel !== undefined && extra[OTEL_TRACE_ID] === undefined) {
    const ids = otel.rootIds();
    root.extra_json = JSON.stringify({ ...extra, [OTEL_TRACE_ID]: ids.traceId, [OTEL_SPAN_ID]: ids.spanId });
    saveRoot();
  }
  return otel;
}
