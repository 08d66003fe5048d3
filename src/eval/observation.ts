/**
 * What the harness saw of one case's run: the evaluators judge only this,
 * so they stay small pure functions that tests can feed by hand.
 * @module
 */
import type { RunStatus } from "../runs/index.js";

/** How a tool step ended, as the agent recorded it. */
export type ObservedToolStatus = "done" | "failed" | "denied" | "rejected";

/** One tool call the model asked for, in call order. */
export interface ObservedToolCall {
  tool: string;
  toolCallId: string;
  args: unknown;
  status: ObservedToolStatus;
  /** The error message of a failed, denied or rejected call. */
  error: string | null;
  /** Who approved it, when it went through an approval. */
  approvedBy: string | null;
}

/** A decision the harness made on a pending action. */
export interface ObservedDecision {
  tool: string;
  actionId: string;
  decision: "approve" | "reject";
  by: string;
}

/** Everything the evaluators may look at for one case. */
export interface CaseObservation {
  caseId: string;
  /** Null when the run could not even be submitted. */
  runId: string | null;
  /** The run's final status, or "ERROR" when the harness could not run it. */
  status: RunStatus | "ERROR";
  /** The final answer when the run produced one. */
  answer: string | null;
  error: { code: string; message: string } | null;
  toolCalls: ObservedToolCall[];
  /** Tools that asked for approval during the run. */
  approvalRequested: string[];
  decisions: ObservedDecision[];
  steps: number;
  modelCalls: number;
  tokens: number;
  costUsd: number;
  /** Calls the simulated systems really performed, per tool. */
  worldCalls: Record<string, number>;
  /** Injected faults that fired, per tool. */
  worldFaults: Record<string, number>;
  /** The case ran with AGENTRT_SIM_FAULTS set. */
  faultsInjected: boolean;
  /** Wall time from submit to the final (or still waiting) state, including approvals. */
  latencyMs: number;
  /** Harness remarks, e.g. an approval script that did not fit the run. */
  notes: string[];
}

/** A blank observation for `caseId`; tests and the runner fill in what they saw. */
export function emptyObservation(caseId: string, patch: Partial<CaseObservation> = {}): CaseObservation {
  return {
    caseId, runId: null, status: "ERROR", answer: null, error: null, toolCalls: [], approvalRequested: [], decisions: [],
    steps: 0, modelCalls: 0, tokens: 0, costUsd: 0, worldCalls: {}, worldFaults: {}, faultsInjected: false, latencyMs: 0, notes: [],
    ...patch,
  };
}
