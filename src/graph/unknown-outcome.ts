/**
 * A side effect whose outcome is unknown (a tool that cannot dedupe timed
 * out, lost its connection, or was found issued without a result after a
 * crash) pauses its branch for a person instead of going back to the model:
 * approve re-issues it with the same idempotency key; reject tells the model
 * it may not have happened. The question is an approval (WAITING_APPROVAL),
 * bound to the call's arguments and to how often it was issued.
 * @module
 */
import type { AgentrtError } from "../errors.js";
import { argsHash } from "../tools/args-hash.js";
import type { AgentTool } from "../tools/define-tool.js";
import type { ToolOutcome } from "../tools/execute-tool.js";
import { isDefiniteFailure, unknownOutcomeOf } from "../ledger/index.js";
import { fallbackWorthy } from "../resilience/index.js";
import { actionIdFor, awaitApproval, type ApprovalRequest, type ApprovalResume } from "./approval.js";

/** Who asks and who may answer. */
export interface UnknownOutcomeAsk {
  tool: string;
  args: Record<string, unknown>;
  toolCallId: string;
  /** The run's user. */
  user: string;
  /** Who may decide; the requester when the tool needed no approval. */
  approvers: string[];
}

/** How the question ended: the settled outcome, or a person's refusal to re-issue. */
export type UnknownOutcomeResult<T> = { kind: "settled"; value: T } | { kind: "declined"; resume: ApprovalResume; message: string };

/** The pending action a person sees: approve re-issues after `attempts` issues with the same key. */
export function unknownOutcomeRequest(ask: UnknownOutcomeAsk, info: { key: string; attempts: number; message: string }): ApprovalRequest {
  return {
    // Bound to the issue count: an approval given for an earlier round never re-issues again on replay.
    action_id: actionIdFor(`${ask.toolCallId}:unknown-outcome:${info.attempts}`),
    tool: ask.tool,
    args: ask.args,
    args_hash: argsHash(ask.tool, ask.args),
    reason: `outcome unknown: ${info.message}. Approve to re-issue it with the same idempotency key (${info.key}); `
      + "reject to report to the model that it may not have happened",
    approvers: ask.approvers,
    requested_by: ask.user,
    tool_call_id: ask.toolCallId,
  };
}

/**
 * Runs `call` (with no confirmation first) until its outcome is known or a
 * person declines to re-issue it. Must run inside a LangGraph node: each
 * question is an `interrupt()`, and on resume the node replays to here.
 */
export async function settleUnknownOutcome<T extends { outcome: ToolOutcome }>(
  ask: UnknownOutcomeAsk,
  call: (confirmedReissue: number | undefined) => Promise<T>,
): Promise<UnknownOutcomeResult<T>> {
  let value = await call(undefined);
  for (let info = unknownOutcomeOf(value.outcome); info !== undefined; info = unknownOutcomeOf(value.outcome)) {
    const resume = awaitApproval(unknownOutcomeRequest(ask, info));
    if (resume.decision === "reject") {
      const why = resume.comment ? ` (${resume.comment})` : "";
      const message = `${ask.tool} may not have happened: its outcome is unknown and ${resume.by} chose not to re-issue it${why}. `
        + "Do not assume it succeeded.";
      return { kind: "declined", resume, message };
    }
    value = await call(info.attempts);
  }
  return { kind: "settled", value };
}

/**
 * Whether a failed call may hand over to its fallback tool: not when the
 * failure is a cancel, a refusal or a stop, and never while a side effect of
 * the primary may have happened (its outcome is unknown), or both could act.
 */
export function mayFallBack(tool: AgentTool, error: AgentrtError): boolean {
  if (!fallbackWorthy(error) || error.code === "UNKNOWN_OUTCOME") return false;
  return !tool.sideEffect || isDefiniteFailure(error);
}
