/**
 * Approval interrupts: a call that policy sends to approval pauses its branch
 * with `interrupt()`. Each pending action carries a stable `action_id` and the
 * `args_hash` it is bound to; a decision is checked before resuming and again
 * inside the branch, so a wrong decision never executes anything.
 * @module
 */
import { createHash } from "node:crypto";
import { Command, interrupt, type StateSnapshot } from "@langchain/langgraph";
import { z } from "zod";
import { UserInputError } from "../errors.js";
import { isApproverAllowed } from "../policy/policy.js";

/** The interrupt payload of a call waiting for approval. */
export interface ApprovalRequest {
  /** Stable id of the action: the same across resumes and processes. */
  action_id: string;
  tool: string;
  args: Record<string, unknown>;
  /** sha256 of the canonical JSON of `{ tool, args }`. */
  args_hash: string;
  /** Why approval is needed (from policy). */
  reason: string;
  /** Who may decide: user ids, "role:NAME" or "*" ("$requester" already resolved). */
  approvers: string[];
  /** The user who started the run. */
  requested_by: string;
  tool_call_id: string;
  /** Set when an earlier decision for this action was refused inside the graph. */
  refused?: string;
}

/** A decision on one pending action. */
export interface ApprovalResume {
  action_id: string;
  args_hash: string;
  decision: "approve" | "reject";
  /** Who decides. */
  by: string;
  /** The decider's roles, matched against "role:NAME" approvers. @default [] */
  roles?: string[];
  /** Free text kept with the decision and shown to the model on reject. */
  comment?: string;
}

/** A pending action together with the LangGraph interrupt it is waiting in. */
export interface PendingAction extends ApprovalRequest {
  interrupt_id: string;
}

const resumeSchema = z.object({
  action_id: z.string().min(1),
  args_hash: z.string().min(1),
  decision: z.enum(["approve", "reject"]),
  by: z.string().min(1),
  roles: z.array(z.string()).optional(),
  comment: z.string().optional(),
});

/** The action id of a tool call: short, stable, derived only from the call id. */
export function actionIdFor(toolCallId: string): string {
  return `act_${createHash("sha256").update(toolCallId).digest("hex").slice(0, 16)}`;
}

/** True for an approval interrupt's payload (what {@link readPendingActions} lists); other interrupts wait for input. */
export function isApprovalRequest(value: unknown): value is ApprovalRequest {
  const v = value as Partial<ApprovalRequest> | null;
  return typeof v === "object" && v !== null && typeof v.action_id === "string" && typeof v.args_hash === "string";
}

/** The actions a thread is waiting on, read from `graph.getState(config)`; empty when none. */
export function readPendingActions(snapshot: Pick<StateSnapshot, "tasks">): PendingAction[] {
  const pending: PendingAction[] = [];
  for (const task of snapshot.tasks) {
    // A finished task still lists the interrupt it was resumed from; only an
    // unfinished task's latest interrupt per action is live (a call throws one
    // at a time; a group of planned calls pauses several calls at once).
    if (task.result !== undefined) continue;
    const live = new Map<string, PendingAction>();
    for (const i of task.interrupts) {
      if (i.id !== undefined && isApprovalRequest(i.value)) live.set(i.value.action_id, { ...i.value, interrupt_id: i.id });
    }
    pending.push(...live.values());
  }
  return pending;
}

/** Result of {@link validateResume}. */
export type ResumeCheck<A extends ApprovalRequest> =
  | { ok: true; action: A; resume: ApprovalResume }
  | { ok: false; error: UserInputError };

/** Like {@link checkResume} but returns the error instead of throwing. */
export function validateResume<A extends ApprovalRequest>(pending: readonly A[], resume: unknown): ResumeCheck<A> {
  const parsed = resumeSchema.safeParse(resume);
  if (!parsed.success) {
    return { ok: false, error: new UserInputError("BAD_INPUT", `malformed approval decision: ${parsed.error.issues.map((i) => i.message).join("; ")}`) };
  }
  const decision = parsed.data;
  const action = pending.find((a) => a.action_id === decision.action_id);
  if (!action) {
    const known = pending.map((a) => a.action_id).join(", ") || "none";
    return { ok: false, error: new UserInputError("UNKNOWN_ACTION", `no pending action ${decision.action_id} (pending: ${known})`, { details: { action_id: decision.action_id } }) };
  }
  if (decision.args_hash !== action.args_hash) {
    return {
      ok: false,
      error: new UserInputError("ARGS_HASH_MISMATCH", `args_hash does not match pending action ${action.action_id} (${action.tool}); expected ${action.args_hash}`, {
        details: { action_id: action.action_id, expected: action.args_hash, got: decision.args_hash },
      }),
    };
  }
  if (!isApproverAllowed(action.approvers, { by: decision.by, roles: decision.roles ?? [] })) {
    return {
      ok: false,
      error: new UserInputError("APPROVER_NOT_ALLOWED", `${decision.by} may not decide ${action.action_id}; allowed: ${action.approvers.join(", ")}`, {
        details: { action_id: action.action_id, by: decision.by, approvers: action.approvers },
      }),
    };
  }
  return { ok: true, action, resume: decision };
}

/**
 * Checks a decision against the pending actions before anything is resumed;
 * throws UserInputError (UNKNOWN_ACTION, ARGS_HASH_MISMATCH, APPROVER_NOT_ALLOWED, BAD_INPUT).
 * Approvers come from the pending payload, where policy resolved them when the run paused.
 */
export function checkResume<A extends ApprovalRequest>(pending: readonly A[], resume: unknown): { action: A; resume: ApprovalResume } {
  const check = validateResume(pending, resume);
  if (!check.ok) throw check.error;
  return { action: check.action, resume: check.resume };
}

/**
 * Refuses (BAD_INPUT) decisions sent together that decide one action more than once: which of them should
 * count is anyone's guess, so none does. Malformed entries are left to {@link validateResume} to name.
 */
export function assertOneDecisionPerAction(decisions: readonly unknown[]): void {
  const seen = new Set<string>();
  for (const decision of decisions) {
    const actionId = (decision as { action_id?: unknown } | null)?.action_id;
    if (typeof actionId !== "string") continue;
    if (seen.has(actionId)) {
      throw new UserInputError("BAD_INPUT", `action ${actionId} is decided more than once in one resume: send one decision per action`, { details: { action_id: actionId } });
    }
    seen.add(actionId);
  }
}

/**
 * The `Command` that resumes exactly the decided actions, keyed by interrupt
 * id so other pending approvals keep waiting. Validates every decision first.
 */
export function resumeCommand(
  pending: readonly PendingAction[],
  decisions: ApprovalResume | readonly ApprovalResume[],
): Command<Record<string, ApprovalResume>, Record<string, never>, never> {
  const list = Array.isArray(decisions) ? decisions : [decisions as ApprovalResume];
  assertOneDecisionPerAction(list);
  const resume: Record<string, ApprovalResume> = {};
  for (const decision of list) {
    const { action, resume: valid } = checkResume(pending, decision);
    resume[action.interrupt_id] = valid;
  }
  return new Command({ resume });
}

/**
 * Pauses the current branch until a valid decision for `request` arrives and
 * returns it. An invalid decision (sent around {@link checkResume}) is refused
 * by interrupting again with the same action, so the run stays waiting.
 * Must run inside a LangGraph node with a checkpointer.
 */
export function awaitApproval(request: ApprovalRequest): ApprovalResume {
  let payload = request;
  for (;;) {
    const value: unknown = interrupt(payload);
    const check = validateResume([request], value);
    if (check.ok) return check.resume;
    payload = { ...request, refused: check.error.message };
  }
}
