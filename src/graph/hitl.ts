/**
 * LangChain's human-in-the-loop dialect beside agentrt's own: an approval interrupt also carries
 * `action_requests` / `review_configs` (and their camelCase twins, which LangChain.js and `useStream` UIs read),
 * and a resume may be `{ decisions: [...] }` in the order of `action_requests`. Both end as agentrt decisions
 * bound to one action's `action_id` and `args_hash`: the HITL dialect names neither, so the binding comes from the
 * interrupt being answered, never from the decision itself.
 * @module
 */
import { z } from "zod";
import { UserInputError } from "../errors.js";
import type { ReviewDecision } from "../policy/policy.js";

/** One action a reviewer is asked about (LangChain HITL `ActionRequest`). */
export interface HitlActionRequest {
  name: string;
  args: Record<string, unknown>;
  /** Why approval is needed. */
  description: string;
}

/**
 * What a reviewer may do with one action (LangChain HITL `ReviewConfig`), every field in both spellings: a client's
 * normalizer picks one array (the SDK's `useStream` prefers `reviewConfigs`) and a UI then reads the other spelling
 * of its fields (agent-chat-ui reads `action_name`), so each object must answer to both.
 */
export interface HitlReviewConfig {
  action_name: string;
  actionName: string;
  allowed_decisions: ReviewDecision[];
  allowedDecisions: ReviewDecision[];
  /** JSON Schema of the tool's arguments, for editing forms. */
  args_schema?: Record<string, unknown>;
  argsSchema?: Record<string, unknown>;
}

/** The HITL fields an approval interrupt carries, in both spellings (equal objects under each name). */
export interface HitlRequestFields {
  action_requests: HitlActionRequest[];
  review_configs: HitlReviewConfig[];
  actionRequests: HitlActionRequest[];
  reviewConfigs: HitlReviewConfig[];
}

/** One HITL decision, as LangChain sends it (snake_case or camelCase `edited_action`). */
export type HitlDecision =
  | { type: "approve"; message?: string }
  | { type: "reject"; message?: string }
  | { type: "edit"; edited_action: { name: string; args: Record<string, unknown> }; message?: string };

/** The HITL fields of one pending tool call. */
export function hitlRequestFields(action: {
  tool: string; args: Record<string, unknown>; reason: string; allowed_decisions: ReviewDecision[]; args_schema?: Record<string, unknown>;
}): HitlRequestFields {
  const schema = action.args_schema === undefined ? {} : { args_schema: action.args_schema, argsSchema: action.args_schema };
  const request = (): HitlActionRequest => ({ name: action.tool, args: action.args, description: action.reason });
  const config = (): HitlReviewConfig => ({
    action_name: action.tool, actionName: action.tool,
    allowed_decisions: action.allowed_decisions, allowedDecisions: action.allowed_decisions, ...schema,
  });
  // Fresh objects per array, so a consumer that edits one spelling in place does not change the other.
  return { action_requests: [request()], review_configs: [config()], actionRequests: [request()], reviewConfigs: [config()] };
}

const editedAction = z.object({ name: z.string().min(1), args: z.record(z.string(), z.unknown()) });
const decisionSchema = z.union([
  z.object({ type: z.literal("approve"), message: z.string().optional() }),
  z.object({ type: z.literal("reject"), message: z.string().optional() }),
  z.object({ type: z.literal("edit"), edited_action: editedAction, message: z.string().optional() }),
  z.object({ type: z.literal("edit"), editedAction: editedAction, message: z.string().optional() }),
]);

/** True when a resume value is in the HITL dialect (`{ decisions: [...] }`) rather than agentrt's. */
export function isHitlResponse(value: unknown): value is { decisions: unknown[] } {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray((value as { decisions?: unknown }).decisions);
}

/** The action a HITL decision list answers: what {@link hitlToDecisions} binds each decision to. */
export interface HitlTarget {
  action_id: string;
  args_hash: string;
  tool: string;
}

/** An agentrt decision made from a HITL one (see `ApprovalResume`, which it is assignable to). */
export interface DecisionFromHitl {
  action_id: string;
  args_hash: string;
  decision: "approve" | "reject" | "edit";
  by: string;
  roles: string[];
  comment?: string;
  edited_args?: Record<string, unknown>;
}

/**
 * Turns `{ decisions }` for one interrupt into agentrt decisions, the i-th decision for the i-th action request,
 * decided by `caller` (the authenticated user, never a field of the body). BAD_INPUT for a list of the wrong
 * length or a malformed decision, and for an edit that renames the tool: nothing is resumed then.
 */
export function hitlToDecisions(
  targets: readonly HitlTarget[], response: { decisions: unknown[] }, caller: { by: string; roles?: readonly string[] },
): DecisionFromHitl[] {
  if (response.decisions.length !== targets.length) {
    throw new UserInputError("BAD_INPUT", `expected ${targets.length} decision(s), one per action request, got ${response.decisions.length}`);
  }
  return targets.map((target, index) => {
    const parsed = decisionSchema.safeParse(response.decisions[index]);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join(".") || "decision"}: ${i.message}`).join("; ");
      throw new UserInputError("BAD_INPUT", `decision ${index + 1} is not a HITL decision (approve, edit with edited_action, reject): ${why}`);
    }
    const d = parsed.data;
    const base = { action_id: target.action_id, args_hash: target.args_hash, by: caller.by, roles: [...(caller.roles ?? [])] };
    const comment = d.message === undefined ? {} : { comment: d.message };
    if (d.type !== "edit") return { ...base, decision: d.type, ...comment };
    const edit = "edited_action" in d ? d.edited_action : d.editedAction;
    if (edit.name !== target.tool) {
      throw new UserInputError("BAD_INPUT", `decision ${index + 1} edits ${edit.name}, but the action is a call of ${target.tool}: an edit changes arguments only`);
    }
    return { ...base, decision: "edit", edited_args: edit.args, ...comment };
  });
}
