/**
 * Approvals of foreign agents: a graph built with LangChain's `createAgent` + `humanInTheLoopMiddleware` (or any
 * graph interrupting with the HITL shape) pauses with `{ actionRequests, reviewConfigs }` (or the snake_case
 * `action_requests` / `review_configs`) and no agentrt fields. Each action request becomes an agentrt pending action:
 * its `action_id` derives from the interrupt id and the request's index, its `args_hash` from the tool and arguments,
 * so a decision is bound to that interrupt's action exactly as for agentrt's own approvals. The graph is resumed with
 * the `{ decisions }` list the middleware expects, one per action request, in order: the whole interrupt at once.
 * @module
 */
import { createHash } from "node:crypto";
import { UserInputError } from "../errors.js";
import { evaluatePolicy, type Policy, type ReviewDecision } from "../policy/policy.js";
import { argsHash } from "../tools/args-hash.js";
import type { ApprovalResume, PendingAction } from "./approval.js";

/** A pending action read from a foreign HITL interrupt: which of the interrupt's action requests it is. */
export interface ForeignPendingAction extends PendingAction {
  foreign: { index: number; count: number };
}

/** Who a foreign interrupt's approvals are judged for: the run's user, and the agentrt policy attached to the graph. */
export interface ForeignScope {
  /** The user who started the run ("$requester"); unresolved when unknown (a read for display only). */
  requester?: string;
  /** agentrt's policy for the graph's tools (see `withApprovalPolicy`). @default none: the requester approves */
  policy?: Policy;
}

interface Request { name: string; args: Record<string, unknown>; description: string }
interface Review { allowed: ReviewDecision[]; schema?: Record<string, unknown> }

const DECISIONS: readonly ReviewDecision[] = ["approve", "edit", "reject"];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function requestsOf(value: Record<string, unknown>): unknown[] | undefined {
  const list = value.actionRequests ?? value.action_requests;
  return Array.isArray(list) ? list : undefined;
}

function reviewsOf(value: Record<string, unknown>): unknown[] | undefined {
  const list = value.reviewConfigs ?? value.review_configs;
  return Array.isArray(list) ? list : undefined;
}

/** True for a HITL interrupt value that agentrt did not raise (agentrt's own carry `action_id` and `args_hash`). */
export function isForeignHitlRequest(value: unknown): boolean {
  if (!isObject(value) || "action_id" in value) return false;
  const requests = requestsOf(value);
  return requests !== undefined && requests.length > 0 && reviewsOf(value) !== undefined &&
    requests.every((r) => isObject(r) && typeof r.name === "string" && isObject(r.args));
}

/** The action id of the `index`-th action request of interrupt `interruptId`: stable across reads and processes. */
export function foreignActionId(interruptId: string, index: number): string {
  return `act_${createHash("sha256").update(`${interruptId}#${index}`).digest("hex").slice(0, 16)}`;
}

function reviewFor(reviews: unknown[], index: number, name: string): Review {
  // The middleware lists them index-aligned; a review naming another tool is looked up by name.
  const at = reviews[index];
  const found = [at, ...reviews].find((r) => isObject(r) && (r.actionName ?? r.action_name) === name);
  const review = isObject(found) ? found : {};
  const allowed = review.allowedDecisions ?? review.allowed_decisions;
  const schema = review.argsSchema ?? review.args_schema;
  return {
    allowed: Array.isArray(allowed) ? DECISIONS.filter((d) => allowed.includes(d)) : ["approve", "reject"],
    ...(isObject(schema) ? { schema } : {}),
  };
}

/**
 * The pending actions of one foreign HITL interrupt. Approvers are the requester unless an agentrt policy is given:
 * then policy decides them per call (tool risk "destructive", the call's arguments for rules with `when`), the
 * decisions allowed are those both the middleware and policy allow, and a call policy denies may only be rejected.
 */
export function foreignPendingActions(interruptId: string, value: unknown, scope: ForeignScope = {}): ForeignPendingAction[] {
  if (!isObject(value)) return [];
  const requests = (requestsOf(value) ?? []) as Request[];
  const reviews = reviewsOf(value) ?? [];
  const requester = scope.requester ?? "$requester";
  return requests.map((request, index) => {
    const review = reviewFor(reviews, index, request.name);
    const description = typeof request.description === "string" ? request.description : `${request.name} needs approval`;
    const judged = judge(scope.policy, request, requester);
    return {
      action_id: foreignActionId(interruptId, index),
      tool: request.name,
      args: request.args,
      args_hash: argsHash(request.name, request.args),
      reason: judged === undefined ? description : `${description} (${judged.reason})`,
      approvers: judged?.approvers ?? [requester],
      requested_by: requester,
      tool_call_id: "",
      allowed_decisions: judged === undefined ? review.allowed : review.allowed.filter((d) => judged.decisions.includes(d)),
      ...(review.schema === undefined ? {} : { args_schema: review.schema }),
      interrupt_id: interruptId,
      foreign: { index, count: requests.length },
    };
  });
}

function judge(policy: Policy | undefined, request: Request, requester: string): { approvers?: string[]; decisions: ReviewDecision[]; reason: string } | undefined {
  if (policy === undefined) return undefined;
  const decision = evaluatePolicy(policy, { tool: { name: request.name, risk: "destructive", tags: [] }, user: requester, roles: [], args: request.args });
  if (decision.effect === "deny") return { decisions: ["reject"], reason: `denied by policy: ${decision.reason}` };
  if (decision.effect === "allow") return { decisions: [...DECISIONS], reason: decision.reason };
  return { approvers: decision.approvers, decisions: decision.decisions, reason: decision.reason };
}

/**
 * Why an edit of a foreign action is refused by the graph's agentrt policy (the edited arguments are judged again:
 * denied, or needing another approver), or undefined when it stands.
 */
export function foreignEditProblem(policy: Policy | undefined, action: PendingAction, decision: ApprovalResume): string | undefined {
  if (policy === undefined || decision.edited_args === undefined) return undefined;
  const judged = evaluatePolicy(policy, {
    tool: { name: action.tool, risk: "destructive", tags: [] }, user: action.requested_by, roles: [], args: decision.edited_args,
  });
  if (judged.effect === "deny") return `policy denies ${action.tool} with these arguments: ${judged.reason}`;
  const roles = decision.roles ?? [];
  if (judged.effect === "approve" && !judged.approvers.some((a) => a === "*" || a === decision.by || (a.startsWith("role:") && roles.includes(a.slice(5))))) {
    return `${decision.by} may not approve ${action.tool} with these arguments; allowed: ${judged.approvers.join(", ")}`;
  }
  return undefined;
}

/** True for a pending action read from a foreign HITL interrupt. */
export function isForeignAction(action: PendingAction): action is ForeignPendingAction {
  return isObject((action as Partial<ForeignPendingAction>).foreign);
}

/** One agentrt decision as the HITL middleware takes it (both spellings of `edited_action`: JS reads the camelCase). */
function hitlDecision(action: ForeignPendingAction, decision: ApprovalResume): Record<string, unknown> {
  if (decision.decision === "approve") return { type: "approve" };
  if (decision.decision === "reject") {
    return { type: "reject", message: decision.comment ?? `${decision.by} rejected the call of ${action.tool}` };
  }
  const edited = { name: action.tool, args: decision.edited_args ?? action.args };
  return { type: "edit", editedAction: edited, edited_action: edited };
}

/**
 * The resume values of the foreign interrupts `decided` touches, keyed by interrupt id: `{ decisions }` in the order
 * of the interrupt's action requests. BAD_INPUT unless every action of such an interrupt is decided: the middleware
 * takes them only all at once.
 */
export function foreignResumeValues(decided: readonly { action: PendingAction; resume: ApprovalResume }[]): Record<string, { decisions: unknown[] }> {
  const byInterrupt = new Map<string, { action: ForeignPendingAction; resume: ApprovalResume }[]>();
  for (const d of decided) {
    if (!isForeignAction(d.action)) continue;
    byInterrupt.set(d.action.interrupt_id, [...(byInterrupt.get(d.action.interrupt_id) ?? []), { action: d.action, resume: d.resume }]);
  }
  const values: Record<string, { decisions: unknown[] }> = {};
  for (const [interruptId, list] of byInterrupt) {
    const count = list[0]?.action.foreign.count ?? 0;
    if (list.length !== count) {
      throw new UserInputError("BAD_INPUT", `interrupt ${interruptId} asks about ${count} actions at once; decide all of them in one resume (got ${list.length})`, {
        details: { interrupt_id: interruptId, expected: count, got: list.length },
      });
    }
    const ordered = [...list].sort((a, b) => a.action.foreign.index - b.action.foreign.index);
    values[interruptId] = { decisions: ordered.map((d) => hitlDecision(d.action, d.resume)) };
  }
  return values;
}
