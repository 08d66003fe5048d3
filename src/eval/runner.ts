/**
 * Runs a dataset's cases one after another (graphs are shared module
 * singletons, so cases never overlap) and builds the report.
 * @module
 */
import type { DatasetCase } from "./case-schema.js";
import { evaluateCase } from "./evaluators.js";
import { buildReport, type CaseReport, type EvalReport } from "./report.js";
import { runCase, type RunCaseOptions } from "./run-case.js";

/** Options of {@link runDataset}. */
export interface RunDatasetOptions extends RunCaseOptions {
  /** Shown in the report. @default "dataset" */
  dataset?: string;
  /** The pass rate below which the report says it failed. @default 1 */
  minPass?: number;
  /** Called after each case, e.g. for a progress line. @default none */
  onCase?: (done: CaseReport, index: number, total: number) => void;
}

/**
 * Runs every case against `options.graph` and evaluates it.
 * @example
 * const report = await runDataset(parseDataset(text, "order_delay.jsonl"), { graph: "order_delay" });
 * console.log(report.summary.pass_rate);
 */
export async function runDataset(cases: readonly DatasetCase[], options: RunDatasetOptions): Promise<EvalReport> {
  const results: CaseReport[] = [];
  const startedAt = new Date();
  for (const [index, item] of cases.entries()) {
    const observed = await runCase(item.case, options);
    const evaluators = evaluateCase(item.case.expect, observed);
    const report: CaseReport = {
      id: item.case.id,
      line: item.line,
      pass: evaluators.every((e) => e.pass),
      run_id: observed.runId,
      status: observed.status,
      answer: observed.answer,
      error: observed.error,
      steps: observed.steps,
      model_calls: observed.modelCalls,
      tokens: observed.tokens,
      cost_usd: observed.costUsd,
      latency_ms: Math.round(observed.latencyMs),
      tools: observed.toolCalls.map((c) => `${c.tool}:${c.status}`),
      world_calls: observed.worldCalls,
      notes: observed.notes,
      evaluators,
    };
    results.push(report);
    options.onCase?.(report, index, cases.length);
  }
  return buildReport({
    graph: options.graph, dataset: options.dataset ?? "dataset", startedAt, cases: results, minPass: options.minPass ?? 1,
  });
}
