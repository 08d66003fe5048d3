import { describe, expect, it } from "vitest";
import { percentile, type SqliteTraceStore } from "../../src/trace/index.js";
import { T0, freshStore } from "./fixtures/seed.js";

/** Seeds two graphs: "orders" with tool `slow` (10 calls, 10..100 ms, 3 failures, 2 retries), "weather" with `fast` (20 calls, 1..20 ms). */
function seed(store: SqliteTraceStore): void {
  const orders = store.recorder("o1", { graph: "orders", startTime: T0 });
  for (let i = 1; i <= 10; i++) {
    orders.recordToolCall({ tool: "slow", startTime: T0, endTime: T0 + i * 10, status: i <= 3 ? "error" : "ok", attempt: i === 4 || i === 5 ? 2 : 1 });
  }
  orders.recordModelCall({ model: "gpt-4o-mini", inputTokens: 1000, outputTokens: 100, startTime: T0, endTime: T0 + 1 });
  orders.startSpan({ kind: "retry", name: "retry chat", startTime: T0 + 1 }).end({ endTime: T0 + 2 });
  orders.recordStateChange("RUNNING", "FAILED", { at: T0 + 100 });
  const weather = store.recorder("w1", { graph: "weather", startTime: T0 + 1000 });
  for (let i = 1; i <= 20; i++) weather.recordToolCall({ tool: "fast", startTime: T0 + 1000, endTime: T0 + 1000 + i });
  weather.recordModelCall({ model: "gpt-4o", inputTokens: 2000, outputTokens: 500, startTime: T0 + 1000, endTime: T0 + 1001 });
  const weather2 = store.recorder("w2", { graph: "weather", startTime: T0 + 2000 });
  weather2.recordModelCall({ model: "gpt-4o", inputTokens: 1000, outputTokens: 0, startTime: T0 + 2000, endTime: T0 + 2001 });
}

describe("percentile", () => {
  it("uses the nearest rank", () => {
    expect(percentile([], 50)).toBe(0);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 95)).toBe(40);
  });
});

describe("TraceStore.stats", () => {
  it("gives p50/p95, failure rate and retries per tool, slowest first", () => {
    const { store } = freshStore();
    seed(store);
    const stats = store.stats();
    expect(stats.tools).toEqual([
      { tool: "slow", calls: 10, failures: 3, failureRate: 0.3, p50Ms: 50, p95Ms: 100, maxMs: 100, retries: 2 },
      { tool: "fast", calls: 20, failures: 0, failureRate: 0, p50Ms: 10, p95Ms: 19, maxMs: 20, retries: 0 },
    ]);
    // two tool retries plus one retried model call
    expect(stats.totals.retries).toBe(3);
  });

  it("sums tokens and cost per graph and per run, most recent run first", () => {
    const { store } = freshStore();
    seed(store);
    const stats = store.stats();
    expect(stats.runs).toBe(3);
    const weather = stats.graphs.find((g) => g.graph === "weather")!;
    expect(weather).toMatchObject({ runs: 2, modelCalls: 2, inputTokens: 3000, outputTokens: 500 });
    expect(weather.costUsd).toBeCloseTo((3000 * 2.5 + 500 * 10) / 1e6, 12);
    expect(stats.recentRuns.map((r) => r.runId)).toEqual(["w2", "w1", "o1"]);
    expect(stats.recentRuns.find((r) => r.runId === "o1")).toMatchObject({ status: "FAILED", durationMs: 100, toolCalls: 10, retries: 3, modelCalls: 1 });
    expect(stats.recentRuns.find((r) => r.runId === "w2")).toMatchObject({ status: "running", durationMs: null });
    expect(stats.totals.costUsd).toBeCloseTo(stats.graphs.reduce((n, g) => n + g.costUsd, 0), 12);
  });

  it("filters by graph and limits the run list", () => {
    const { store } = freshStore();
    seed(store);
    const stats = store.stats({ graph: "weather", recentRuns: 1 });
    expect(stats.graph).toBe("weather");
    expect(stats.runs).toBe(2);
    expect(stats.tools.map((t) => t.tool)).toEqual(["fast"]);
    expect(stats.graphs.map((g) => g.graph)).toEqual(["weather"]);
    expect(stats.recentRuns.map((r) => r.runId)).toEqual(["w2"]);
    expect(store.stats({ graph: "nope" })).toMatchObject({ runs: 0, tools: [], graphs: [], recentRuns: [] });
  });
});
