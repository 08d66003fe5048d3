/**
 * `command.resume` of a run request, read as agentrt decisions bound to the run's pending actions.
 * @module
 */
import type { ApprovalResume, PendingAction } from "../graph/approval.js";
import { hitlToDecisions, isHitlResponse } from "../graph/hitl.js";
import type { Caller } from "./auth.js";
import { HttpError } from "./http-error.js";

/**
 * `command.resume` as decisions: one decision, a list, or a map keyed by interrupt id — each in agentrt's dialect
 * or LangChain HITL's (`{ decisions: [...] }`, bound to the action of the interrupt it answers).
 * The decider is the authenticated caller; without auth, the body's `by` or the run's user.
 */
export function decisionsFrom(resume: unknown, pending: readonly PendingAction[], caller: Caller, runUser: string): ApprovalResume[] {
  const decider = caller.authenticated ? { by: caller.id, roles: caller.roles } : { by: runUser, roles: [] };
  if (isHitlResponse(resume)) {
    // HITL names no action: it can only answer the one interrupt there is (a foreign agent's may ask about several).
    const interrupts = new Set(pending.map((p) => p.interrupt_id));
    if (interrupts.size !== 1) {
      throw new HttpError(422, "BAD_INPUT", `${pending.length} actions wait, each in its own interrupt: send { "<interrupt_id>": { "decisions": [...] } } per interrupt`);
    }
    return hitlToDecisions(pending, resume, decider);
  }
  let raw: unknown[];
  if (Array.isArray(resume)) raw = resume;
  else if (resume !== null && typeof resume === "object" && !("action_id" in resume)) {
    raw = Object.entries(resume).flatMap(([interruptId, value]) => {
      const actions = pending.filter((p) => p.interrupt_id === interruptId);
      const action = actions[0];
      if (action === undefined || value === null || typeof value !== "object") return [value];
      if (isHitlResponse(value)) return hitlToDecisions(actions, value, decider);
      const named = (value as { action_id?: unknown }).action_id;
      // Keyed by one interrupt but naming another's action: which one was meant cannot be told.
      if (named !== undefined && named !== action.action_id) {
        throw new HttpError(422, "BAD_INPUT", `resume entry for interrupt ${interruptId} names action ${JSON.stringify(named)}, but that interrupt waits on ${action.action_id}`);
      }
      return [{ action_id: action.action_id, ...value }];
    });
  } else raw = [resume];
  return raw.map((d) => {
    const decision = (d !== null && typeof d === "object" ? d : {}) as Partial<ApprovalResume>;
    const by = caller.authenticated ? caller.id : (decision.by ?? runUser);
    const roles = caller.authenticated ? caller.roles : (decision.roles ?? []);
    return { ...decision, by, roles } as ApprovalResume;
  });
}
