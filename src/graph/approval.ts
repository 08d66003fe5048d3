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
import { isApproverAllowed, type ReviewDecision } from "../policy/policy.js";
import type { HitlRequestFields } from "./hitl.js";
import { editArgsProblem } from "./edit-args.js";
import { foreignPendingActions, foreignResumeValues, isForeignHitlRequest, type ForeignScope } from "./foreign-hitl.js";

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
  /** What the approver may answer (policy's `decisions`). Absent in payloads from before edits: approve or reject. */
  allowed_decisions?: ReviewDecision[];
  /** JSON Schema of the tool's arguments: an edit is checked against it before anything resumes. */
  args_schema?: Record<string, unknown>;
}

/** An approval interrupt as agentrt raises it: its own fields and LangChain's HITL fields, one action each. */
export type ApprovalInterrupt = ApprovalRequest & Partial<HitlRequestFields>;

/** A decision on one pending action. */
export interface ApprovalResume {
  action_id: string;
  args_hash: string;
  /** "edit" approves the call with `edited_args` instead of the model's arguments. */
  decision: "approve" | "reject" | "edit";
  /** Who decides. */
  by: string;
  /** The decider's roles, matched against "role:NAME" approvers. @default [] */
  roles?: string[];
  /** Free text kept with the decision and shown to the model on reject. */
  comment?: string;
  /** The arguments to run the tool with instead, when `decision` is "edit". */
  edited_args?: Record<string, unknown>;
}

/** A pending action together with the LangGraph interrupt it is waiting in. */
export interface PendingAction extends ApprovalRequest {
  interrupt_id: string;
}

const resumeSchema = z.object({
  action_id: z.string().min(1),
  args_hash: z.string().min(1),
  decision: z.enum(["approve", "reject", "edit"]),
  by: z.string().min(1),
  roles: z.array(z.string()).optional(),
  comment: z.string().optional(),
  edited_args: z.record(z.string(), z.unknown()).optional(),
}).refine((d) => (d.decision === "edit") === (d.edited_args !== undefined), {
  message: "edited_args comes with decision \"edit\" and only with it",
});

const LEGACY_DECISIONS: readonly ReviewDecision[] = ["approve", "reject"];

/** The action id of a tool call: short, stable, derived only from the call id. */
export function actionIdFor(toolCallId: string): string {
  return `act_${createHash("sha256").update(toolCallId).digest("hex").slice(0, 16)}`;
}

/** True for an approval interrupt's payload (what {@link readPendingActions} lists); other interrupts wait for input. */
export function isApprovalRequest(value: unknown): value is ApprovalRequest {
  const v = value as Partial<ApprovalRequest> | null;
  return typeof v === "object" && v !== null && typeof v.action_id === "string" && typeof v.args_hash === "string";
}

/**
 * The actions a thread is waiting on, read from `graph.getState(config)`; empty when none. A foreign agent's HITL
 * interrupt (`humanInTheLoopMiddleware`) lists one action per action request, judged for `foreign`.
 */
export function readPendingActions(snapshot: Pick<StateSnapshot, "tasks">, foreign: ForeignScope = {}): PendingAction[] {
  const pending: PendingAction[] = [];
  for (const task of snapshot.tasks) {
    // A finished task still lists the interrupt it was resumed from; only an
    // unfinished task's latest interrupt per action is live (a call throws one
    // at a time; a group of planned calls pauses several calls at once).
    if (task.result !== undefined) continue;
    const live = new Map<string, PendingAction>();
    for (const i of task.interrupts) {
      if (i.id !== undefined && isApprovalRequest(i.value)) live.set(i.value.action_id, { ...i.value, interrupt_id: i.id });
      else if (i.id !== undefined && isForeignHitlRequest(i.value)) {
        for (const action of foreignPendingActions(i.id, i.value, foreign)) live.set(action.action_id, action);
      }
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
  const allowed = action.allowed_decisions ?? LEGACY_DECISIONS;
  if (!allowed.includes(decision.decision)) {
    return {
      ok: false,
      error: new UserInputError("DECISION_NOT_ALLOWED", `${decision.decision} is not allowed for ${action.action_id} (${action.tool}); allowed: ${allowed.join(", ")}`, {
        details: { action_id: action.action_id, decision: decision.decision, allowed },
      }),
    };
  }
  const problem = decision.edited_args === undefined ? undefined : editArgsProblem(action.args_schema, decision.edited_args);
  if (problem !== undefined) {
    return {
      ok: false,
      error: new UserInputError("EDIT_ARGS_INVALID", `edited arguments for ${action.tool} refused: ${problem}`, {
        details: { action_id: action.action_id, problem },
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
 * throws UserInputError (UNKNOWN_ACTION, ARGS_HASH_MISMATCH, DECISION_NOT_ALLOWED, EDIT_ARGS_INVALID,
 * APPROVER_NOT_ALLOWED, BAD_INPUT).
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
): Command<Record<string, unknown>, Record<string, never>, never> {
  const list = Array.isArray(decisions) ? decisions : [decisions as ApprovalResume];
  assertOneDecisionPerAction(list);
  const resume: Record<string, unknown> = {};
  const decided = list.map((decision) => checkResume(pending, decision));
  for (const { action, resume: valid } of decided) resume[action.interrupt_id] = valid;
  // A foreign interrupt takes LangChain's `{ decisions }` for all its actions at once.
  Object.assign(resume, foreignResumeValues(decided));
  return new Command({ resume });
}

/**
 * Pauses the current branch until a valid decision for `request` arrives and
 * returns it. An invalid decision (sent around {@link checkResume}), or one `check` refuses (a reason),
 * is refused by interrupting again with the same action, so the run stays waiting.
 * Must run inside a LangGraph node with a checkpointer.
 */
export function awaitApproval(request: ApprovalInterrupt, check?: (resume: ApprovalResume) => string | undefined): ApprovalResume {
  let payload = request;
  for (;;) {
    const value: unknown = interrupt(payload);
    const valid = validateResume([request], value);
    const refusal = valid.ok ? check?.(valid.resume) : valid.error.message;
    if (valid.ok && refusal === undefined) return valid.resume;
    payload = { ...request, refused: refusal };
  }
}
