/**
 * Evaluation: datasets of cases, evaluators, and a runner that uses the
 * runtime like a user does.
 * @module
 */
export { parseDataset } from "./case-schema.js";
export type { EvalCase, CaseExpectation, ExpectedToolCall, CaseApproval, DatasetCase } from "./case-schema.js";
export { argsMatch } from "./args-match.js";
export { emptyObservation } from "./observation.js";
export type { CaseObservation, ObservedToolCall, ObservedToolStatus, ObservedDecision } from "./observation.js";
export {
  EVALUATORS, EVALUATOR_NAMES, evaluateCase, taskSuccess, toolCalls, steps, errorRecovery, cost, safety,
} from "./evaluators.js";
export type { Evaluator, EvaluatorName, EvaluatorResult } from "./evaluators.js";
export { runCase } from "./run-case.js";
export type { RunCaseOptions } from "./run-case.js";
export { runDataset } from "./runner.js";
export type { RunDatasetOptions } from "./runner.js";
export { buildReport, renderReport, progressLine } from "./report.js";
export type { EvalReport, CaseReport, EvaluatorSummary } from "./report.js";
export { appendFailures, defaultFailuresPath } from "./failures.js";
