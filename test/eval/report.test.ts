import { describe, expect, it } from "vitest";
import type { EvaluatorResult } from "../../src/eval/evaluators.js";
import { buildReport, progressLine, renderReport, type CaseReport } from "../../src/eval/report.js";

const ev = (name: EvaluatorResult["name"], pass: boolean, skipped = false): EvaluatorResult => ({ name, pass, skipped, detail: pass ? "ok" : `${name} broke` });
const all = (failing: EvaluatorResult["name"][] = []): EvaluatorResult[] =>
  (["task_success", "tool_calls", "steps", "error_recovery", "cost", "safety"] as const).map((n) => ev(n, !failing.includes(n), n === "cost"));
const row = (id: string, latency: number, cost: number, failing: EvaluatorResult["name"][] = []): CaseReport => ({
  id, line: 1, pass: failing.length === 0, run_id: `run_${id}`, status: "SUCCEEDED", answer: "x", error: null, steps: 3, model_calls: 2, tokens: 10,
  cost_usd: cost, latency_ms: latency, tools: [], world_calls: {}, notes: [], evaluators: all(failing),
});

describe("eval report", () => {
  const report = buildReport({
    graph: "order_delay", dataset: "d.jsonl", startedAt: new Date(0), minPass: 0.9,
    cases: [row("a", 100, 0.001), row("b", 300, 0.002, ["tool_calls", "safety"]), row("c", 200, 0.003)],
  });

  it("sums pass rate, per-evaluator rates over applicable cases, cost and latency percentiles", () => {
    expect(report.summary).toMatchObject({
      cases: 3, passed: 2, failed: 1, min_pass: 0.9, ok: false, total_cost_usd: 0.006, total_tokens: 30, p50_latency_ms: 200, p95_latency_ms: 300,
    });
    expect(report.summary.pass_rate).toBeCloseTo(2 / 3);
    expect(report.summary.evaluators.tool_calls).toMatchObject({ applicable: 3, passed: 2 });
    expect(report.summary.evaluators.cost).toEqual({ applicable: 0, passed: 0, pass_rate: 1 });
  });

  it("renders a row per case, the failing details and the summary", () => {
    const text = renderReport(report);
    expect(text).toMatch(/^b +FAIL +SUCCEEDED +3 +\$0\.002000 +300ms +tool_calls,safety$/m);
    expect(text).toMatch(/^a +pass +SUCCEEDED +3 +\$0\.001000 +100ms +-$/m);
    expect(text).toContain("  b tool_calls: tool_calls broke");
    expect(text).toContain("passed 2/3 (66.7%, min 90.0%)  cost $0.006000  30 tokens  latency p50 200ms p95 300ms");
    expect(text).toContain("tool_calls 2/3");
    expect(progressLine(report.cases[1]!, 1, 3)).toBe("[2/3] FAIL b SUCCEEDED 300ms (tool_calls, safety)");
  });
});
