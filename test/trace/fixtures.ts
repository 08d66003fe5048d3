import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { openTraceStore, type TraceStore, type TraceStoreOptions } from "../../src/trace/index.js";

/** 2026-01-01T00:00:00Z: fixed epoch so rendered timelines are golden. */
export const T0 = Date.UTC(2026, 0, 1);

/** A fresh database file in a temp directory. */
export function tempDbPath(): string {
  return join(mkdtempSync(join(tmpdir(), "agentrt-trace-")), "runs.db");
}

/** A trace store on a fresh file. */
export function freshStore(options: TraceStoreOptions = {}): { db: SqliteDatabase; store: TraceStore; path: string } {
  const path = tempDbPath();
  const db = openDatabase(path);
  return { db, store: openTraceStore(db, { otel: false, ...options }), path };
}

/**
 * Seeds the ops_rollback shape with fixed timestamps (ms after T0):
 * model turn, parallel get_deployment ∥ query_logs, approval wait, rollback, final turn.
 */
export function seedOpsRollback(store: TraceStore, runId = "run_01"): void {
  const at = (ms: number) => T0 + ms;
  const rec = store.recorder(runId, { graph: "ops_rollback", agent: "ops", startTime: at(0) });
  rec.recordStateChange("QUEUED", "RUNNING", { at: at(0) });
  const s1 = rec.startStep("model_turn 1", { startTime: at(0), stepId: "step-1" });
  rec.recordModelCall({ model: "gpt-4o-mini", inputTokens: 1000, outputTokens: 200, startTime: at(0), endTime: at(200), parentId: s1.id });
  s1.end({ endTime: at(200) });
  const s2 = rec.startStep("tools 1", { startTime: at(200), stepId: "step-2" });
  rec.recordToolCall({ tool: "get_deployment", toolCallId: "call_1", args: { service: "payments" }, startTime: at(200), endTime: at(500), parentId: s2.id, resultSize: 120 });
  rec.recordToolCall({ tool: "query_logs", toolCallId: "call_2", args: { service: "payments", token: "s3cret" }, redact: ["token"], startTime: at(210), endTime: at(600), parentId: s2.id, resultSize: 800 });
  s2.end({ endTime: at(600) });
  const s3 = rec.startStep("approval 1", { startTime: at(600), stepId: "step-3" });
  const wait = rec.startSpan({ kind: "approval_wait", name: "approval_wait rollback_deployment", parentId: s3.id, startTime: at(600) });
  rec.recordStateChange("RUNNING", "WAITING_APPROVAL", { at: at(600) });
  wait.end({ endTime: at(800) });
  rec.recordStateChange("WAITING_APPROVAL", "RUNNING", { at: at(800) });
  rec.recordToolCall({ tool: "rollback_deployment", toolCallId: "call_3", attempt: 2, idempotencyKey: "run_01:call_3:1", externalOperationId: "op-77", startTime: at(800), endTime: at(900), parentId: s3.id });
  s3.end({ endTime: at(900) });
  const s4 = rec.startStep("model_turn 2", { startTime: at(900), stepId: "step-4" });
  rec.recordModelCall({ model: "gpt-4o-mini", inputTokens: 1500, outputTokens: 100, startTime: at(900), endTime: at(1000), parentId: s4.id });
  s4.end({ endTime: at(1000) });
  rec.recordStateChange("RUNNING", "SUCCEEDED", { at: at(1000) });
  rec.close();
}
