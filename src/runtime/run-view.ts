/**
 * The JSON a run is shown as by `agentrt run|approve|status --json` and the
 * runtime API. Field names are a contract: extend, never rename.
 * @module
 */
import type { ReviewDecision } from "../policy/policy.js";
import type { RunRecord, RunStatus } from "../runs/index.js";
import { storedInputRequests, type InputRequest } from "./input-requests.js";
import type { SideEffectView } from "./side-effects.js";

/** A pending action as scripts see it: enough to approve it exactly. */
export interface PendingActionView {
  action_id: string;
  tool: string;
  args: Record<string, unknown>;
  args_hash: string;
  reason?: string;
  approvers?: string[];
  /** What an approver may answer: approve, edit (`--edit-args`), reject. Absent on runs paused before edits. */
  allowed_decisions?: ReviewDecision[];
}

/** A run as the CLI prints it and the runtime returns it. */
export interface RunView {
  run_id: string;
  thread_id: string;
  graph: string;
  user: string;
  status: RunStatus;
  pending: PendingActionView[];
  /** What a WAITING_INPUT run asks (answer with `agentrt input`); empty otherwise. */
  input_requests: InputRequest[];
  /** When the current approval or input wait expires (ISO time); null when not waiting or without a wait TTL. */
  wait_expires_at: string | null;
  result: unknown;
  error: { code: string; message: string } | null;
  usage: { steps: number; model_calls: number; tokens: number; cost_usd: number };
  created_at: string;
  updated_at: string;
  /**
   * On a run that ended without success (FAILED, EXPIRED, CANCELED): the side effects it performed or may have
   * performed (`status: "unknown"`), which stay done. Absent when there are none, and on other runs.
   */
  side_effects?: SideEffectView[];
}

/** Builds the view of a stored run. */
export function toRunView(run: RunRecord): RunView {
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    graph: run.graphId,
    user: run.userId,
    status: run.status,
    pending: run.status === "WAITING_APPROVAL" ? pendingViews(run.pending) : [],
    input_requests: run.status === "WAITING_INPUT" ? storedInputRequests(run.pending) : [],
    wait_expires_at: run.waitExpiresAt === null ? null : new Date(run.waitExpiresAt).toISOString(),
    result: run.result ?? null,
    error: run.errorCode === null ? null : { code: run.errorCode, message: run.errorMessage ?? "" },
    usage: {
      steps: run.usage.steps,
      model_calls: run.usage.modelCalls,
      tokens: run.usage.tokens,
      cost_usd: run.usage.costUsd,
    },
    created_at: new Date(run.createdAt).toISOString(),
    updated_at: new Date(run.updatedAt).toISOString(),
  };
}

function pendingViews(pending: unknown): PendingActionView[] {
  if (!Array.isArray(pending)) return [];
  return pending.map((p: PendingActionView) => ({
    action_id: p.action_id,
    tool: p.tool,
    args: p.args,
    args_hash: p.args_hash,
    ...(p.reason === undefined ? {} : { reason: p.reason }),
    ...(p.approvers === undefined ? {} : { approvers: p.approvers }),
    ...(p.allowed_decisions === undefined ? {} : { allowed_decisions: p.allowed_decisions }),
  }));
}
