/**
 * The review of one tool call before it runs: policy decides allow, deny or approval; an approver may approve,
 * reject or edit the arguments. An edit is a new action: its arguments pass the tool's schema, policy judges them
 * again (they may need another approver, or be denied), they are bound to a new args_hash, and the call runs under
 * the next action version, so its idempotency key differs from the unedited call's.
 * @module
 */
import { evaluatePolicy, isApproverAllowed, type Policy } from "../../policy/policy.js";
import { argsHash } from "../../tools/args-hash.js";
import type { AgentTool } from "../../tools/define-tool.js";
import { actionIdFor, awaitApproval } from "../approval.js";
import { argsJsonSchema } from "../edit-args.js";
import { hitlRequestFields } from "../hitl.js";

/**
 * What the review let through: the arguments to run with (and who may settle them if their outcome turns out
 * unknown: the approvers policy named, else the requester), or why the call does not run.
 */
export type ReviewOutcome =
  | { kind: "run"; args: Record<string, unknown>; approvedBy?: string; edit?: CallEdit; approvers: string[] }
  | { kind: "denied"; reason: string }
  | { kind: "rejected"; by: string; comment?: string };

/** An approver's change of a call's arguments, kept for the trace. */
export interface CallEdit {
  by: string;
  originalArgs: Record<string, unknown>;
  /** How many edits led to the arguments that run (each advances the action version by one). */
  count: number;
}

/** The call under review and who asked for it. */
export interface ReviewSubject {
  tool: AgentTool;
  args: Record<string, unknown>;
  toolCallId: string;
  user: string;
  roles: readonly string[];
}

/**
 * Reviews a validated call; pauses the branch (LangGraph `interrupt`) while an approval is pending.
 * Must run inside a LangGraph node with a checkpointer when policy may ask for approval.
 */
export function reviewCall(subject: ReviewSubject, policy: Policy): ReviewOutcome {
  const { tool, toolCallId, user, roles } = subject;
  let args = subject.args;
  let edit: CallEdit | undefined;
  let editorRoles: readonly string[] = [];
  for (;;) {
    const decision = evaluatePolicy(policy, { tool, user, roles, args });
    if (decision.effect === "deny") return { kind: "denied", reason: decision.reason };
    // An edit is the editor's approval of the new arguments when policy would accept them from the editor.
    const editorMayApprove = edit !== undefined && isApproverAllowed(decision.approvers, { by: edit.by, roles: editorRoles });
    const approvers = decision.effect === "approve" ? decision.approvers : [user];
    if (decision.effect === "allow" || editorMayApprove) {
      return { kind: "run", args, approvers, ...(edit === undefined ? {} : { approvedBy: edit.by, edit }) };
    }
    const schema = argsJsonSchema(tool.schema);
    const request = {
      action_id: actionIdFor(toolCallId), tool: tool.name, args, args_hash: argsHash(tool.name, args), reason: decision.reason,
      approvers: decision.approvers, requested_by: user, tool_call_id: toolCallId, allowed_decisions: decision.decisions,
      ...(schema === undefined ? {} : { args_schema: schema }),
    };
    const resume = awaitApproval({ ...request, ...hitlRequestFields(request) }, (answer) => {
      if (answer.edited_args === undefined) return undefined;
      const parsed = tool.schema.safeParse(answer.edited_args);
      return parsed.success ? undefined : `edited arguments refused by ${tool.name}'s schema: ${parsed.error.issues.map((i) => i.message).join("; ")}`;
    });
    if (resume.decision === "reject") return { kind: "rejected", by: resume.by, ...(resume.comment === undefined ? {} : { comment: resume.comment }) };
    if (resume.decision === "approve") return { kind: "run", args, approvers, approvedBy: resume.by, ...(edit === undefined ? {} : { edit }) };
    args = tool.schema.parse(resume.edited_args) as Record<string, unknown>;
    edit = { by: resume.by, originalArgs: edit?.originalArgs ?? subject.args, count: (edit?.count ?? 0) + 1 };
    editorRoles = resume.roles ?? [];
  }
}
