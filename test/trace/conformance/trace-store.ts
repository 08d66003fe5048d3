// The behaviour every TraceStore backend must have, run against SQLite (trace-store.sqlite.test.ts) and
// PostgreSQL (trace-store.postgres.test.ts).
import { afterEach, describe, expect, it, vi } from "vitest";
import { ToolError } from "../../../src/errors.js";
import type { TraceStore, TraceStoreOptions } from "../../../src/trace/index.js";
import { T0, seedOpsRollback } from "../fixtures/seed.js";

/** One empty database of the backend under test. */
export interface TraceBackend {
  /** A store on it (OpenTelemetry off unless the options say otherwise). */
  store: TraceStore;
  /** Another store on the same database, as another process would open it. */
  another(options?: TraceStoreOptions): Promise<TraceStore>;
  /** Releases the database (and every store opened on it). */
  close(): Promise<void>;
}

/** Registers the conformance tests of a trace store backend; `open` gives a fresh, empty database per call. */
export function describeTraceStoreConformance(name: string, open: (options?: TraceStoreOptions) => Promise<TraceBackend>): void {
  describe(`TraceStore conformance: ${name}`, () => {
    const opened: TraceBackend[] = [];
    const fresh = async (options: TraceStoreOptions = {}) => {
      const backend = await open({ otel: false, ...options });
      opened.push(backend);
      return backend;
    };
    afterEach(async () => {
      for (const backend of opened.splice(0)) await backend.close();
    });

    it("stores the model and tool call facts, step ids and parentage", async () => {
      const { store } = await fresh();
      await seedOpsRollback(store);
      const spans = await store.spans("run_01");
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

    it("round-trips every attribute exactly: fractional times, cost, arguments, extra values of each type", async () => {
      const { store } = await fresh();
      const rec = await store.recorder("attrs", { graph: "g", agent: "a", startTime: T0 + 0.125, extra: { tenant: "acme", tier: 2, beta: true } });
      const id = rec.recordToolCall({
        tool: "t", toolCallId: "c1", args: { q: "naïve \"quoted\" {a,b} \\ ∅", n: [1, 2.5], nested: { ok: null } }, attempt: 3,
        idempotencyKey: "k", externalOperationId: "op", resultSize: 12345, startTime: T0 + 1.0625, endTime: T0 + 2.3,
        extra: { s: "x", n: 0.1, b: false }, error: new Error("boom"),
      });
      const modelId = rec.recordModelCall({ model: "gpt-4o", inputTokens: 7, outputTokens: 3, costUsd: 0.000123456789, startTime: T0 + 3, endTime: T0 + 4 });
      await rec.flush();
      const spans = await store.spans("attrs");
      expect(spans[0]).toMatchObject({ startMs: T0 + 0.125, graph: "g", agent: "a", extra: { tenant: "acme", tier: 2, beta: true } });
      expect(spans.find((s) => s.spanId === id)).toEqual({
        spanId: id, runId: "attrs", parentId: rec.rootId, stepId: null, kind: "tool_call", name: "execute_tool t", status: "error",
        startMs: T0 + 1.0625, endMs: T0 + 2.3, graph: "g", agent: "a", model: null, inputTokens: null, outputTokens: null,
        costUsd: null, tool: "t", toolCallId: "c1", args: { q: "naïve \"quoted\" {a,b} \\ ∅", n: [1, 2.5], nested: { ok: null } },
        attempt: 3, idempotencyKey: "k", externalOperationId: "op", resultSize: 12345, error: "boom", extra: { s: "x", n: 0.1, b: false },
      });
      expect(spans.find((s) => s.spanId === modelId)).toMatchObject({ model: "gpt-4o", inputTokens: 7, outputTokens: 3, costUsd: 0.000123456789 });
    });

    it("reads spans back parents first, in start order, ties in the order they were recorded", async () => {
      const { store } = await fresh();
      const rec = await store.recorder("order", { startTime: T0 });
      const late = rec.startStep("late", { startTime: T0 + 50 });
      const early = rec.startStep("early", { startTime: T0 + 10 });
      for (const n of ["a", "b", "c", "d"]) rec.recordToolCall({ tool: n, parentId: early.id, startTime: T0 + 20, endTime: T0 + 30 });
      early.end({ endTime: T0 + 40 });
      late.end({ endTime: T0 + 60 });
      rec.recordStateChange("RUNNING", "SUCCEEDED", { at: T0 + 60 });
      const spans = await store.spans("order");
      expect(spans.map((s) => s.name)).toEqual([
        "invoke_agent order", "early", "execute_tool a", "execute_tool b", "execute_tool c", "execute_tool d", "late", "RUNNING → SUCCEEDED",
      ]);
    });

    it("counts spans of a kind, pending ones included, and knows which runs it has", async () => {
      const { store } = await fresh({ flushDelayMs: 60_000 });
      expect(await store.hasRun("c")).toBe(false);
      expect(await store.countSpans("c", "tool_call")).toBe(0);
      const rec = await store.recorder("c", { startTime: T0 });
      for (let i = 0; i < 3; i++) rec.recordToolCall({ tool: "t", startTime: T0, endTime: T0 + 1 });
      rec.recordModelCall({ model: "m", inputTokens: 1, outputTokens: 1, startTime: T0, endTime: T0 + 1 });
      expect(await store.countSpans("c", "tool_call")).toBe(3);
      expect(await store.countSpans("c", "model_call")).toBe(1);
      expect(await store.countSpans("other", "tool_call")).toBe(0);
      expect(await store.hasRun("c")).toBe(true);
      expect(await store.spans("nope")).toEqual([]);
    });

    it("a step without an explicit id uses its span id, and its children inherit it", async () => {
      const { store } = await fresh();
      const rec = await store.recorder("r", { startTime: T0 });
      const step = rec.startStep("model_turn 1", { startTime: T0 });
      const callId = rec.recordModelCall({ model: "scripted", inputTokens: 10, outputTokens: 5, parentId: step.id, startTime: T0, endTime: T0 + 1 });
      step.end({ endTime: T0 + 2 });
      expect(step.stepId).toBe(step.id);
      expect((await store.spans("r")).find((s) => s.spanId === callId)!.stepId).toBe(step.id);
    });

    it("names a model call after its turn, like the seed's tree (model_turn 2)", async () => {
      const { store } = await fresh();
      const rec = await store.recorder("r", { startTime: T0 });
      rec.recordModelCall({ model: "scripted", turn: 2, inputTokens: 1, outputTokens: 1, startTime: T0, endTime: T0 + 1 });
      rec.recordModelCall({ model: "scripted", extra: { turn: 3 }, inputTokens: 1, outputTokens: 1, startTime: T0, endTime: T0 + 1 });
      const calls = (await store.spans("r")).filter((s) => s.kind === "model_call");
      expect(calls.map((s) => [s.name, s.extra.turn])).toEqual([["model_turn 2", 2], ["model_turn 3", 3]]);
    });

    it("records errors with their agentrt code and error events as instants", async () => {
      const { store } = await fresh();
      const rec = await store.recorder("r", { startTime: T0 });
      const call = rec.startSpan({ kind: "tool_call", name: "execute_tool get_order", startTime: T0, attributes: { tool: "get_order", attempt: 1 } });
      call.end({ endTime: T0 + 5, error: new ToolError("TOOL_TIMEOUT", "get_order timed out after 5ms\nstack") });
      call.end({ endTime: T0 + 999 }); // ignored: a span ends once
      rec.recordError(new Error("model said nonsense"), { at: T0 + 6 });
      const spans = await store.spans("r");
      expect(spans.find((s) => s.kind === "tool_call")).toMatchObject({ status: "error", endMs: T0 + 5, error: "get_order timed out after 5ms [TOOL_TIMEOUT]" });
      expect(spans.find((s) => s.kind === "error_event")).toMatchObject({ status: "error", startMs: T0 + 6, endMs: T0 + 6, error: "model said nonsense" });
    });

    it("opens a wait span on entering a waiting status and closes it on leaving, even from another store", async () => {
      const backend = await fresh();
      const a = await backend.store.recorder("r", { startTime: T0 });
      a.recordStateChange("RUNNING", "WAITING_INPUT", { at: T0 + 10, reason: "which order?" });
      await a.close();
      const other = await backend.another();
      const b = await other.recorder("r");
      expect(b.openSpans().map((s) => [s.kind, s.name, s.extra.reason])).toEqual([["input_wait", "input_wait", "which order?"]]);
      b.recordStateChange("QUEUED", "RUNNING", { at: T0 + 50 }); // a stale `from` still closes the wait
      b.recordStateChange("RUNNING", "WAITING_APPROVAL", { at: T0 + 60, waitName: "approval_wait send_message" });
      b.recordStateChange("WAITING_APPROVAL", "CANCELED", { at: T0 + 70 });
      await b.close();
      const spans = await backend.store.spans("r");
      expect(spans.find((s) => s.kind === "input_wait")).toMatchObject({ status: "ok", startMs: T0 + 10, endMs: T0 + 50 });
      expect(spans.find((s) => s.kind === "approval_wait")).toMatchObject({ name: "approval_wait send_message", status: "canceled", endMs: T0 + 70 });
      expect(spans[0]).toMatchObject({ kind: "invoke_agent", status: "canceled", endMs: T0 + 70 });
    });

    it("re-attaches to the run's root from another store and ends a wait it did not start", async () => {
      const backend = await fresh();
      const a = await backend.store.recorder("r", { graph: "ops_rollback", startTime: T0 });
      expect(a.resumed).toBe(false);
      const wait = a.startSpan({ kind: "approval_wait", name: "approval_wait rollback", startTime: T0 + 1 });
      await a.close();

      const second = await backend.another();
      const b = await second.recorder("r", { graph: "ignored", startTime: T0 + 50 });
      expect(b.resumed).toBe(true);
      expect(b.rootId).toBe(a.rootId);
      expect(b.openSpans("approval_wait").map((s) => s.spanId)).toEqual([wait.id]);
      expect(b.endSpan(wait.id, { endTime: T0 + 100 })).toBe(true);
      expect(b.endSpan(wait.id, { endTime: T0 + 200 })).toBe(false);
      b.recordToolCall({ tool: "rollback", startTime: T0 + 100, endTime: T0 + 110 });
      b.recordStateChange("RUNNING", "SUCCEEDED", { at: T0 + 120 });

      const spans = await second.spans("r");
      expect(spans.filter((s) => s.kind === "invoke_agent")).toHaveLength(1);
      expect(spans.find((s) => s.spanId === wait.id)).toMatchObject({ status: "ok", endMs: T0 + 100 });
      expect(spans.find((s) => s.tool === "rollback")).toMatchObject({ parentId: a.rootId, graph: "ops_rollback" });
      expect(spans[0]).toMatchObject({ status: "ok", endMs: T0 + 120 });
    });

    it("inserts a run's root only if absent: stores attaching at once share the first one", async () => {
      const backend = await fresh();
      const stores = [backend.store, await backend.another(), await backend.another()];
      const recorders = await Promise.all(stores.map((s, i) => s.recorder("race", { graph: `g${i}`, startTime: T0 + i })));
      expect(new Set(recorders.map((r) => r.rootId)).size).toBe(1);
      expect(recorders.filter((r) => !r.resumed)).toHaveLength(1);
      const spans = await backend.store.spans("race");
      expect(spans).toHaveLength(1);
      const winner = recorders.findIndex((r) => !r.resumed);
      expect(spans[0]).toMatchObject({ spanId: recorders[0]!.rootId, graph: `g${winner}`, startMs: T0 + winner });
      // The same store hands out the same live recorder.
      expect(await backend.store.recorder("race")).toBe(recorders[0]);
    });

    it("calls init with the recorder before handing it out, a new or a live one; its spans are stored with the root", async () => {
      const { store } = await fresh();
      const seen: unknown[] = [];
      const rec = await store.recorder("init", {
        startTime: T0, init: (r) => {
          seen.push(r);
          r.recordStateChange("QUEUED", "RUNNING", { at: T0 });
        },
      });
      expect(seen).toEqual([rec]);
      await rec.flush();
      expect((await store.spans("init")).map((s) => s.kind)).toEqual(["invoke_agent", "state_change"]);
      expect(await store.recorder("init", { init: (r) => seen.push(r) })).toBe(rec);
      expect(seen).toEqual([rec, rec]);
    });

    it("an init that throws hands out no recorder; the next call attaches afresh", async () => {
      const { store } = await fresh();
      await expect(store.recorder("boom", { init: () => {
        throw new Error("boom");
      } })).rejects.toThrow("boom");
      const rec = await store.recorder("boom", { init: (r) => r.recordStateChange("QUEUED", "RUNNING", { at: T0 }) });
      await rec.flush();
      expect(await store.countSpans("boom", "state_change")).toBe(1);
      expect(await store.countSpans("boom", "invoke_agent")).toBe(1);
    });

    it("counts the run's state changes from every store, read again when a live recorder is asked for", async () => {
      const backend = await fresh();
      const a = await backend.store.recorder("sc", { startTime: T0 });
      a.recordStateChange("QUEUED", "RUNNING", { at: T0 });
      expect(a.countStateChanges()).toBe(1);
      const other = await backend.another();
      const b = await other.recorder("sc");
      expect(b.countStateChanges()).toBe(1);
      a.recordStateChange("RUNNING", "RETRYING", { at: T0 + 1 });
      a.recordStateChange("RETRYING", "RUNNING", { at: T0 + 2 });
      await a.flush();
      expect(await other.recorder("sc")).toBe(b);
      expect(b.countStateChanges()).toBe(3);
      expect(await backend.store.countSpans("sc", "state_change")).toBe(3);
    });

    it("batches: nothing is written until the batch is due, then all of it in one go", async () => {
      const backend = await fresh({ flushDelayMs: 60_000 });
      const reader = await backend.another();
      const rec = await backend.store.recorder("r", { startTime: T0 });
      expect(await reader.spans("r")).toHaveLength(1); // the root is written at once, so other processes can attach
      const step = rec.startStep("tools 1", { startTime: T0 });
      for (const tool of ["a", "b", "c"]) rec.recordToolCall({ tool, startTime: T0, endTime: T0 + 1, parentId: step.id });
      step.end({ endTime: T0 + 2 });
      expect(await reader.spans("r")).toHaveLength(1);
      await rec.flush();
      expect(await reader.spans("r")).toHaveLength(5);
    });

    it("a recorder's batch holds its urgent writes until it ends, and its lookups see the pending rows", async () => {
      const backend = await fresh({ flushDelayMs: 60_000 });
      const reader = await backend.another();
      const rec = await backend.store.recorder("b", { startTime: T0 });
      rec.recordToolCall({ tool: "a", startTime: T0, endTime: T0 + 1 });
      const wait = rec.startSpan({ kind: "approval_wait", name: "approval_wait a", startTime: T0 + 1 });
      await rec.flush();
      let flushed: Promise<void> | undefined;
      rec.batch(() => {
        rec.recordToolCall({ tool: "b", startTime: T0 + 2, endTime: T0 + 3 });
        rec.recordStateChange("WAITING_APPROVAL", "RUNNING", { at: T0 + 4 });
        expect(rec.countStateChanges()).toBe(1);
        expect(rec.openSpans().map((s) => s.spanId)).not.toContain(wait.id); // ended by the change, not yet written
        flushed = rec.flush();
      });
      await flushed;
      const kinds = (await reader.spans("b")).map((s) => `${s.kind}:${s.status}`);
      expect(kinds).toEqual(["invoke_agent:running", "tool_call:ok", "approval_wait:ok", "tool_call:ok", "state_change:ok"]);
    });

    it("flushes pending spans after a short delay even inside a long step", async () => {
      const backend = await fresh({ flushDelayMs: 5 });
      const reader = await backend.another();
      const rec = await backend.store.recorder("r", { startTime: T0 });
      rec.startStep("long step", { startTime: T0 });
      await vi.waitFor(async () => expect(await reader.spans("r")).toHaveLength(2));
    });

    it("writes an approval wait without waiting for the batch: the process may exit right after the interrupt", async () => {
      const backend = await fresh({ flushDelayMs: 60_000 });
      const reader = await backend.another();
      const rec = await backend.store.recorder("r", { startTime: T0 });
      rec.startSpan({ kind: "approval_wait", name: "approval_wait rollback", startTime: T0 });
      await vi.waitFor(async () => expect((await reader.spans("r")).map((s) => s.kind)).toEqual(["invoke_agent", "approval_wait"]));
    });

    it("writes a large batch in one flush and updates rows already written", async () => {
      const { store } = await fresh({ flushDelayMs: 60_000, maxBuffered: 100_000 });
      const rec = await store.recorder("big", { startTime: T0 });
      const step = rec.startStep("fan-out", { startTime: T0 });
      for (let i = 0; i < 5000; i++) {
        rec.recordToolCall({ tool: `t${i % 7}`, parentId: step.id, startTime: T0 + i, endTime: T0 + i + (i % 13), args: { i }, extra: { i } });
      }
      await rec.flush();
      step.end({ endTime: T0 + 6000 });
      await rec.flush();
      const spans = await store.spans("big");
      expect(spans).toHaveLength(5002);
      expect(spans.find((s) => s.spanId === step.id)).toMatchObject({ status: "ok", endMs: T0 + 6000 });
      expect(spans.filter((s) => s.kind === "tool_call").map((s) => s.extra.i)).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    });

    it("lists parents before children when a child starts first (a resumed run's clock behind)", async () => {
      const { store } = await fresh();
      const rec = await store.recorder("skew", { startTime: T0 });
      const step = rec.startStep("model_turn", { startTime: T0 + 10 });
      // Another process resumed the run with its clock 5 ms behind: the call starts "before" its step.
      const call = rec.startSpan({ kind: "tool_call", name: "execute_tool a", parentId: step.id, startTime: T0 + 5, attributes: { tool: "a" } });
      const nested = rec.startSpan({ kind: "retry", name: "retry a", parentId: call.id, startTime: T0 + 4 });
      nested.end({ endTime: T0 + 6 });
      call.end({ endTime: T0 + 7 });
      const sibling = rec.startStep("model_turn 2", { startTime: T0 + 8 });
      sibling.end({ endTime: T0 + 9 });
      step.end({ endTime: T0 + 20 });
      rec.end({ endTime: T0 + 30 });
      const spans = await store.spans("skew");
      const at = (id: string) => spans.findIndex((s) => s.spanId === id);
      for (const span of spans) if (span.parentId !== null) expect(at(span.parentId), span.name).toBeLessThan(at(span.spanId));
      expect(spans.map((s) => s.name)).toEqual([spans[0]!.name, "model_turn 2", "model_turn", "execute_tool a", "retry a"]);
    });

    it("accepts spans from concurrent branches recording at the same time", async () => {
      const { store } = await fresh({ flushDelayMs: 1 });
      const rec = await store.recorder("r");
      const step = rec.startStep("fan-out");
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const span = rec.startSpan({ kind: "tool_call", name: `execute_tool t${i}`, parentId: step.id, attributes: { tool: `t${i}` } });
          await new Promise((resolve) => setTimeout(resolve, i % 3));
          span.end({ attributes: { resultSize: i } });
        }),
      );
      step.end();
      const calls = (await store.spans("r")).filter((s) => s.kind === "tool_call");
      expect(calls).toHaveLength(20);
      expect(calls.every((s) => s.status === "ok" && s.stepId === step.id)).toBe(true);
    });

    describe("stats", () => {
      /** Two graphs: "orders" with tool `slow` (10 calls, 10..100 ms, 3 failures, 2 retries), "weather" with `fast` (20 calls, 1..20 ms). */
      async function seed(store: TraceStore): Promise<void> {
        const orders = await store.recorder("o1", { graph: "orders", startTime: T0 });
        for (let i = 1; i <= 10; i++) {
          orders.recordToolCall({ tool: "slow", startTime: T0, endTime: T0 + i * 10, status: i <= 3 ? "error" : "ok", attempt: i === 4 || i === 5 ? 2 : 1 });
        }
        orders.recordModelCall({ model: "gpt-4o-mini", inputTokens: 1000, outputTokens: 100, startTime: T0, endTime: T0 + 1 });
        orders.startSpan({ kind: "retry", name: "retry chat", startTime: T0 + 1 }).end({ endTime: T0 + 2 });
        orders.recordStateChange("RUNNING", "FAILED", { at: T0 + 100 });
        const weather = await store.recorder("w1", { graph: "weather", startTime: T0 + 1000 });
        for (let i = 1; i <= 20; i++) weather.recordToolCall({ tool: "fast", startTime: T0 + 1000, endTime: T0 + 1000 + i });
        weather.recordModelCall({ model: "gpt-4o", inputTokens: 2000, outputTokens: 500, startTime: T0 + 1000, endTime: T0 + 1001 });
        const weather2 = await store.recorder("w2", { graph: "weather", startTime: T0 + 2000 });
        weather2.recordModelCall({ model: "gpt-4o", inputTokens: 1000, outputTokens: 0, startTime: T0 + 2000, endTime: T0 + 2001 });
        const untagged = await store.recorder("n1", { startTime: T0 - 1000 });
        untagged.recordToolCall({ tool: "fast", startTime: T0 - 1000, endTime: T0 - 990 });
      }

      it("gives p50/p95, failure rate and retries per tool, slowest first", async () => {
        const { store } = await fresh();
        await seed(store);
        const stats = await store.stats();
        expect(stats.tools).toEqual([
          { tool: "slow", calls: 10, failures: 3, failureRate: 0.3, p50Ms: 50, p95Ms: 100, maxMs: 100, retries: 2 },
          { tool: "fast", calls: 21, failures: 0, failureRate: 0, p50Ms: 10, p95Ms: 19, maxMs: 20, retries: 0 },
        ]);
        // two tool retries plus one retried model call
        expect(stats.totals.retries).toBe(3);
      });

      it("sums tokens and cost per graph and per run, most recent run first", async () => {
        const { store } = await fresh();
        await seed(store);
        const stats = await store.stats();
        expect(stats.runs).toBe(4);
        expect(stats.totals).toMatchObject({ modelCalls: 3, inputTokens: 4000, outputTokens: 600 });
        const weather = stats.graphs.find((g) => g.graph === "weather")!;
        expect(weather).toMatchObject({ runs: 2, modelCalls: 2, inputTokens: 3000, outputTokens: 500 });
        expect(weather.costUsd).toBeCloseTo((3000 * 2.5 + 500 * 10) / 1e6, 12);
        expect(stats.graphs.map((g) => g.graph)).toEqual(["weather", "orders", "(none)"]);
        expect(stats.graphs.find((g) => g.graph === "(none)")).toMatchObject({ runs: 1, modelCalls: 0, inputTokens: 0, costUsd: 0 });
        expect(stats.recentRuns.map((r) => r.runId)).toEqual(["w2", "w1", "o1", "n1"]);
        expect(stats.recentRuns.find((r) => r.runId === "o1")).toMatchObject({
          graph: "orders", status: "FAILED", startMs: T0, durationMs: 100, toolCalls: 10, retries: 3, modelCalls: 1, inputTokens: 1000, outputTokens: 100,
        });
        expect(stats.recentRuns.find((r) => r.runId === "w2")).toMatchObject({ graph: "weather", status: "running", durationMs: null, toolCalls: 0, retries: 0 });
        expect(stats.totals.costUsd).toBeCloseTo(stats.graphs.reduce((n, g) => n + g.costUsd, 0), 12);
      });

      it("filters by graph and limits the run list", async () => {
        const { store } = await fresh();
        await seed(store);
        const stats = await store.stats({ graph: "weather", recentRuns: 1 });
        expect(stats.graph).toBe("weather");
        expect(stats.runs).toBe(2);
        expect(stats.tools.map((t) => t.tool)).toEqual(["fast"]);
        expect(stats.tools[0]).toMatchObject({ calls: 20, p95Ms: 19 });
        expect(stats.graphs.map((g) => g.graph)).toEqual(["weather"]);
        expect(stats.recentRuns.map((r) => r.runId)).toEqual(["w2"]);
        expect(await store.stats({ graph: "nope" })).toEqual({
          graph: "nope", runs: 0, totals: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, retries: 0 }, tools: [], graphs: [], recentRuns: [],
        });
      });

      it("gives empty stats for a database without spans", async () => {
        const { store } = await fresh();
        expect(await store.stats()).toEqual({
          graph: null, runs: 0, totals: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, retries: 0 }, tools: [], graphs: [], recentRuns: [],
        });
      });
    });
  });
}
