/**
 * The evaluation report: one row per case and a summary (pass rate,
 * per-evaluator pass rates, total cost, run latency), as JSON and as a table.
 * @module
 */
import type { RunStatus } from "../runs/index.js";
import { percentile } from "../trace/index.js";
import { EVALUATOR_NAMES, type EvaluatorName, type EvaluatorResult } from "./evaluators.js";

/** One case in the report. Field names are a contract: extend, never rename. */
export interface CaseReport {
  id: string;
  /** Line of the dataset file the case came from. */
  line: number;
  pass: boolean;
  run_id: string | null;
  status: RunStatus | "ERROR";
  answer: string | null;
  error: { code: string; message: string } | null;
  steps: number;
  model_calls: number;
  tokens: number;
  cost_usd: number;
  latency_ms: number;
  /** `tool:status` per call, in call order. */
  tools: string[];
  world_calls: Record<string, number>;
  notes: string[];
  evaluators: EvaluatorResult[];
}

/** Pass counts of one evaluator over the cases it applied to. */
export interface EvaluatorSummary {
  applicable: number;
  passed: number;
  /** 1 when it applied to no case. */
  pass_rate: number;
}

/** The whole run of a dataset. */
export interface EvalReport {
  graph: string;
  dataset: string;
  started_at: string;
  cases: CaseReport[];
  summary: {
    cases: number;
    passed: number;
    failed: number;
    pass_rate: number;
    min_pass: number;
    /** pass_rate >= min_pass. */
    ok: boolean;
    evaluators: Record<EvaluatorName, EvaluatorSummary>;
    total_cost_usd: number;
    total_tokens: number;
    p50_latency_ms: number;
    p95_latency_ms: number;
  };
}

/** Sums up case results into a report. */
export function buildReport(input: { graph: string; dataset: string; startedAt: Date; cases: CaseReport[]; minPass: number }): EvalReport {
  const { cases } = input;
  const passed = cases.filter((c) => c.pass).length;
  const passRate = cases.length === 0 ? 1 : passed / cases.length;
  const evaluators = Object.fromEntries(EVALUATOR_NAMES.map((name) => {
    const applied = cases.flatMap((c) => c.evaluators.filter((e) => e.name === name && !e.skipped));
    const ok = applied.filter((e) => e.pass).length;
    return [name, { applicable: applied.length, passed: ok, pass_rate: applied.length === 0 ? 1 : ok / applied.length }];
  })) as Record<EvaluatorName, EvaluatorSummary>;
  const latencies = cases.map((c) => c.latency_ms).sort((a, b) => a - b);
  return {
    graph: input.graph,
    dataset: input.dataset,
    started_at: input.startedAt.toISOString(),
    cases,
    summary: {
      cases: cases.length,
      passed,
      failed: cases.length - passed,
      pass_rate: passRate,
      min_pass: input.minPass,
      ok: passRate >= input.minPass,
      evaluators,
      total_cost_usd: round(cases.reduce((sum, c) => sum + c.cost_usd, 0)),
      total_tokens: cases.reduce((sum, c) => sum + c.tokens, 0),
      p50_latency_ms: percentile(latencies, 50),
      p95_latency_ms: percentile(latencies, 95),
    },
  };
}

const round = (usd: number) => Math.round(usd * 1e9) / 1e9;
const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/** The progress line printed after each case. */
export function progressLine(done: CaseReport, index: number, total: number): string {
  const failing = done.evaluators.filter((e) => !e.pass).map((e) => e.name);
  return `[${index + 1}/${total}] ${done.pass ? "pass" : "FAIL"} ${done.id} ${done.status} ${done.latency_ms}ms${failing.length > 0 ? ` (${failing.join(", ")})` : ""}`;
}

/** The table: a row per case, then failing details and the summary. */
export function renderReport(report: EvalReport): string {
  const rows = report.cases.map((c) => [
    c.id, c.pass ? "pass" : "FAIL", c.status, String(c.steps), `$${c.cost_usd.toFixed(6)}`, `${c.latency_ms}ms`,
    c.evaluators.filter((e) => !e.pass).map((e) => e.name).join(",") || "-",
  ]);
  const header = ["case", "result", "status", "steps", "cost", "latency", "failing"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  const out = [`eval ${report.dataset} on graph ${report.graph}`, line(header), ...rows.map(line)];
  const failing = report.cases.filter((c) => !c.pass);
  if (failing.length > 0) out.push("", "failures:");
  for (const c of failing) {
    for (const e of c.evaluators.filter((x) => !x.pass)) out.push(`  ${c.id} ${e.name}: ${e.detail}`);
    if (c.error !== null && c.run_id === null) out.push(`  ${c.id} error ${c.error.code}: ${c.error.message}`);
    for (const note of c.notes) out.push(`  ${c.id} note: ${note}`);
  }
  const s = report.summary;
  out.push(
    "",
    `passed ${s.passed}/${s.cases} (${pct(s.pass_rate)}, min ${pct(s.min_pass)})  cost $${s.total_cost_usd.toFixed(6)}  ${s.total_tokens} tokens  latency p50 ${s.p50_latency_ms}ms p95 ${s.p95_latency_ms}ms`,
    `evaluators: ${EVALUATOR_NAMES.map((n) => `${n} ${s.evaluators[n].passed}/${s.evaluators[n].applicable}`).join("  ")}`,
  );
  return out.join("\n");
}
