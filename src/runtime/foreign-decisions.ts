/**
 * The checks a decision on a foreign agent's action needs beyond agentrt's own (action id, args hash, allowed
 * decision, schema, approver): the interrupt is answered whole, and an edit is judged again by the graph's policy.
 * @module
 */
import { UserInputError } from "../errors.js";
import type { ApprovalResume, PendingAction } from "../graph/approval.js";
import { foreignEditProblem, foreignResumeValues, isForeignAction } from "../graph/foreign-hitl.js";
import { approvalPolicyOf } from "../graph/foreign-policy.js";

/**
 * Throws BAD_INPUT when the decisions leave some action of a foreign interrupt undecided, and EDIT_ARGS_INVALID
 * when the graph's agentrt policy denies an edit or needs another approver for it; nothing changes then.
 */
export function checkForeignDecisions(graph: unknown, checked: readonly { action: PendingAction; resume: ApprovalResume }[]): void {
  foreignResumeValues(checked);
  const policy = approvalPolicyOf(graph);
  for (const { action, resume } of checked) {
    if (!isForeignAction(action)) continue;
    const problem = foreignEditProblem(policy, action, resume);
    if (problem !== undefined) {
      throw new UserInputError("EDIT_ARGS_INVALID", `edited arguments for ${action.tool} refused: ${problem}`, { details: { action_id: action.action_id, problem } });
    }
  }
}
