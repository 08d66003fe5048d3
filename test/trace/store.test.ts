import { describe, expect, it, vi } from "vitest";
import { openDatabase, readVersion } from "../../src/db/index.js";
import { ToolError } from "../../src/errors.js";
import { openTraceStore } from "../../src/trace/index.js";
import { T0, freshStore, seedOpsRollback, tempDbPath } from "./fixtures/seed.js";

describe("TraceStore and TraceRecorder", () => {
  it("creates the spans table through src/db migrations", () => {
    const { db } = freshStore();
    expect(readVersion(db, "trace")).toBe(1);
  });

  it("stores the model and tool call facts, step ids and parentage", () => {
    const { store } = freshStore();
    seedOpsRollback(store);
    const spans = store.spans("run_01");
    const root = spans.find((s) => s.kind === "invoke_agent")!;
    expect(root).toMatchObject({ parentId: null, graph: "ops_rollback", agent: "ops", status: "ok", startMs: T0, endMs: T0 + 1000 });
    expect(root.extra["run.status"]).toBe("SUCCEEDED");
    const steps = spans.filter((s) => s.kind === "step");
    expect(steps.map((s) => s.parentId)).toEqual(steps.map(() => root.spanId));
    const rollback = spans.find((s) => s.tool === "rollback_deployment")!;
    expect(rollback).toMatchObject({
      kind: "tool_call", name: "execute_tool rollback_deployment", stepId: null, toolCallId: "call_3", attempt: 2,
      idempotencyKey: "run_01:call_3:1", externalOperationId: "op-77", status: "ok", runId: "run_01", parentId: root.spanId,
    });
    const getDeployment = spans.find((s) => s.tool === "get_deployment")!;
    expect(getDeployment).toMatchObject({ stepId: "step-2", parentId: steps.find((s) => s.stepId === "step-2")!.spanId });
    const model = spans.find((s) => s.kind === "model_call")!;
    expect(model).toMatchObject({ model: "gpt-4o-mini", inputTokens: 1000, outputTokens: 200, stepId: "step-1", name: "chat gpt-4o-mini" });
    const logs = spans.find((s) => s.tool === "query_logs")!;
    expect(logs).toMatchObject({ resultSize: 800, args: { service: "payments", token: "[redacted]" } });
    const changes = spans.filter((s) => s.kind === "state_change").map((s) => s.name);
    expect(changes).toEqual(["QUEUED → RUNNING", "RUNNING → WAITING_APPROVAL", "WAITING_APPROVAL → RUNNING", "RUNNING → SUCCEEDED"]);
    expect(spans.filter((s) => s.kind === "state_change").every((s) => s.startMs === s.endMs)).toBe(true);
  });

  it("a step without an explicit id uses its span id, and its children inherit it", () => {
    const { store } = freshStore();
    const rec = store.recorder("r", { startTime: T0 });
    const step = rec.startStep("model_turn 1", { startTime: T0 });
    const callId = rec.recordModelCall({ model: "scripted", inputTokens: 10, outputTokens: 5, parentId: step.id, startTime: T0, endTime: T0 + 1 });
    step.end({ endTime: T0 + 2 });
    expect(step.stepId).toBe(step.id);
    expect(store.spans("r").find((s) => s.spanId === callId)!.stepId).toBe(step.id);
  });

  it("names a model call after its turn, like the seed's tree (model_turn 2)", () => {
    const { store } = freshStore();
    const rec = store.recorder("r", { startTime: T0 });
    rec.recordModelCall({ model: "scripted", turn: 2, inputTokens: 1, outputTokens: 1, startTime: T0, endTime: T0 + 1 });
    rec.recordModelCall({ model: "scripted", extra: { turn: 3 }, inputTokens: 1, outputTokens: 1, startTime: T0, endTime: T0 + 1 });
    const calls = store.spans("r").filter((s) => s.kind === "model_call");
    expect(calls.map((s) => [s.name, s.extra.turn])).toEqual([["model_turn 2", 2], ["model_turn 3", 3]]);
  });

  it("opens a wait span on entering a waiting status and closes it on leaving, even from another connection", () => {
    const path = tempDbPath();
    const a = openTraceStore(openDatabase(path), { otel: false }).recorder("r", { startTime: T0 });
    a.recordStateChange("RUNNING", "WAITING_INPUT", { at: T0 + 10, reason: "which order?" });
    a.close();
    const b = openTraceStore(openDatabase(path), { otel: false }).recorder("r");
    expect(b.openSpans().map((s) => [s.kind, s.name, s.extra.reason])).toEqual([["input_wait", "input_wait", "which order?"]]);
    b.recordStateChange("QUEUED", "RUNNING", { at: T0 + 50 }); // a stale `from` still closes the wait
    b.recordStateChange("RUNNING", "WAITING_APPROVAL", { at: T0 + 60, waitName: "approval_wait send_message" });
    b.recordStateChange("WAITING_APPROVAL", "CANCELED", { at: T0 + 70 });
    const spans = openTraceStore(openDatabase(path, { readonly: true })).spans("r");
    expect(spans.find((s) => s.kind === "input_wait")).toMatchObject({ status: "ok", startMs: T0 + 10, endMs: T0 + 50 });
    expect(spans.find((s) => s.kind === "approval_wait")).toMatchObject({ name: "approval_wait send_message", status: "canceled", endMs: T0 + 70 });
    expect(spans[0]).toMatchObject({ kind: "invoke_agent", status: "canceled", endMs: T0 + 70 });
  });

  it("records errors with their agentrt code and error events as instants", () => {
    const { store } = freshStore();
    const rec = store.recorder("r", { startTime: T0 });
    const call = rec.startSpan({ kind: "tool_call", name: "execute_tool get_order", startTime: T0, attributes: { tool: "get_order", attempt: 1 } });
    call.end({ endTime: T0 + 5, error: new ToolError("TOOL_TIMEOUT", "get_order timed out after 5ms\nstack") });
    call.end({ endTime: T0 + 999 }); // ignored: a span ends once
    rec.recordError(new Error("model said nonsense"), { at: T0 + 6 });
    const spans = store.spans("r");
    expect(spans.find((s) => s.kind === "tool_call")).toMatchObject({ status: "error", endMs: T0 + 5, error: "get_order timed out after 5ms [TOOL_TIMEOUT]" });
    expect(spans.find((s) => s.kind === "error_event")).toMatchObject({ status: "error", startMs: T0 + 6, endMs: T0 + 6, error: "model said nonsense" });
  });

  it("batches: nothing is written until the batch is due, then all of it in one go", () => {
    const path = tempDbPath();
    const store = openTraceStore(openDatabase(path), { otel: false, flushDelayMs: 60_000 });
    const reader = openTraceStore(openDatabase(path, { readonly: true }));
    const rec = store.recorder("r", { startTime: T0 });
    expect(reader.spans("r")).toHaveLength(1); // the root is written at once, so other processes can attach
    const step = rec.startStep("tools 1", { startTime: T0 });
    for (const tool of ["a", "b", "c"]) rec.recordToolCall({ tool, startTime: T0, endTime: T0 + 1, parentId: step.id });
    step.end({ endTime: T0 + 2 });
    expect(reader.spans("r")).toHaveLength(1);
    rec.flush();
    expect(reader.spans("r")).toHaveLength(5);
  });

  it("flushes pending spans after a short delay even inside a long step", async () => {
    const path = tempDbPath();
    const store = openTraceStore(openDatabase(path), { otel: false, flushDelayMs: 5 });
    const reader = openTraceStore(openDatabase(path, { readonly: true }));
    const rec = store.recorder("r", { startTime: T0 });
    rec.startStep("long step", { startTime: T0 });
    await vi.waitFor(() => expect(reader.spans("r")).toHaveLength(2));
  });

  it("writes an approval wait at once: the process may exit right after the interrupt", () => {
    const path = tempDbPath();
    const store = openTraceStore(openDatabase(path), { otel: false, flushDelayMs: 60_000 });
    const reader = openTraceStore(openDatabase(path, { readonly: true }));
    const rec = store.recorder("r", { startTime: T0 });
    rec.startSpan({ kind: "approval_wait", name: "approval_wait rollback", startTime: T0 });
    expect(reader.spans("r").map((s) => s.kind)).toEqual(["invoke_agent", "approval_wait"]);
  });

  it("re-attaches to the run's root from another connection and ends a wait it did not start", () => {
    const path = tempDbPath();
    const first = openTraceStore(openDatabase(path), { otel: false });
    const a = first.recorder("r", { graph: "ops_rollback", startTime: T0 });
    expect(a.resumed).toBe(false);
    const wait = a.startSpan({ kind: "approval_wait", name: "approval_wait rollback", startTime: T0 + 1 });
    a.close();

    const second = openTraceStore(openDatabase(path), { otel: false });
    const b = second.recorder("r", { graph: "ignored", startTime: T0 + 50 });
    expect(b.resumed).toBe(true);
    expect(b.rootId).toBe(a.rootId);
    expect(b.openSpans("approval_wait").map((s) => s.spanId)).toEqual([wait.id]);
    expect(b.endSpan(wait.id, { endTime: T0 + 100 })).toBe(true);
    expect(b.endSpan(wait.id, { endTime: T0 + 200 })).toBe(false);
    b.recordToolCall({ tool: "rollback", startTime: T0 + 100, endTime: T0 + 110 });
    b.recordStateChange("RUNNING", "SUCCEEDED", { at: T0 + 120 });

    const spans = second.spans("r");
    expect(spans.filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
    expect(spans.find((s) => s.spanId === wait.id)).toMatchObject({ status: "ok", endMs: T0 + 100 });
    expect(spans.find((s) => s.tool === "rollback")).toMatchObject({ parentId: a.rootId, graph: "ops_rollback" });
    expect(spans[0]).toMatchObject({ status: "ok", endMs: T0 + 120 });
  });

  it("accepts spans from concurrent branches recording at the same time", async () => {
    const { store } = freshStore({ flushDelayMs: 1 });
    const rec = store.recorder("r");
    const step = rec.startStep("fan-out");
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const span = rec.startSpan({ kind: "tool_call", name: `execute_tool t${i}`, parentId: step.id, attributes: { tool: `t${i}` } });
        await new Promise((resolve) => setTimeout(resolve, i % 3));
        span.end({ attributes: { resultSize: i } });
      }),
    );
    step.end();
    const calls = store.spans("r").filter((s) => s.kind === "tool_call");
    expect(calls).toHaveLength(20);
    expect(calls.every((s) => s.status === "ok" && s.stepId === step.id)).toBe(true);
  });

  it("reads nothing from a database without traces, even read-only", () => {
    const path = tempDbPath();
    openDatabase(path).close();
    const store = openTraceStore(openDatabase(path, { readonly: true }));
    expect(store.spans("nope")).toEqual([]);
    expect(store.hasRun("nope")).toBe(false);
    expect(store.stats().runs).toBe(0);
  });
});
