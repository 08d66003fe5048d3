/**
 * Who may call which tool: allow, deny, or require an approval, per tool and
 * per user or role. The first matching rule wins; otherwise the tool's risk
 * decides.
 * @module
 */
import type { ToolRisk } from "../tools/define-tool.js";

/** What policy decides for one call. */
export type PolicyEffect = "allow" | "deny" | "approve";

/** What a reviewer may answer a pending approval with (LangChain HITL's `allowed_decisions`). */
export type ReviewDecision = "approve" | "edit" | "reject";

/** Every decision: the default of a rule that does not restrict them. */
export const ALL_REVIEW_DECISIONS: readonly ReviewDecision[] = ["approve", "edit", "reject"];

/** The approver placeholder for the user who started the run. */
export const REQUESTER = "$requester";

/** One rule; every field given must match for the rule to apply. */
export interface PolicyRule {
  /** Tool names, or "*" for every tool. @default every tool */
  tools?: string[] | "*";
  /** Matches tools carrying at least one of these tags. @default any tags */
  tags?: string[];
  /** Matches tools of these risk levels. @default any risk */
  risk?: ToolRisk[];
  /** Matches runs started by one of these users. @default any user */
  users?: string[];
  /** Matches runs whose user holds one of these roles. @default any role */
  roles?: string[];
  /**
   * Matches only calls whose arguments pass this test, e.g. `(args) => Number(args.amount) > 1000`. Judged again on
   * edited arguments, so an edit may need another approver or be denied. @default any arguments
   */
  when?: (args: Readonly<Record<string, unknown>>) => boolean;
  /** What happens when the rule matches. */
  effect: PolicyEffect;
  /** The decisions an approver may give when `effect` is "approve" (leave out "edit" to forbid edits). @default all three */
  decisions?: ReviewDecision[];
  /** Who may approve when `effect` is "approve": user ids, "$requester", "role:NAME" or "*". @default ["$requester"] */
  approvers?: string[];
  /** Shown to the model on deny and to the approver on approve. @default derived from the rule */
  reason?: string;
}

/** The fallback for a risk level when no rule matches. */
export interface RiskDefault {
  effect: PolicyEffect;
  /** @default ["$requester"] */
  approvers?: string[];
}

/** Options of {@link definePolicy}. */
export interface PolicyOptions {
  /** Checked in order; the first match wins. @default [] */
  rules?: PolicyRule[];
  /** Per-risk fallbacks. @default read → allow, write → allow, destructive → approve by "$requester" */
  defaults?: Partial<Record<ToolRisk, RiskDefault>>;
  /**
   * Once untrusted content (a tool result or document) is in the run's context,
   * write and destructive tools that would be allowed outright need approval instead.
   * @default false
   */
  taint?: boolean | TaintOptions;
}

/** How a tainted run is gated; see {@link PolicyOptions.taint}. */
export interface TaintOptions {
  /** Risk levels gated once tainted. @default ["write", "destructive"] */
  risk?: ToolRisk[];
  /** Who may approve a gated call. @default ["$requester"] */
  approvers?: string[];
}

/** A resolved policy; build it with {@link definePolicy}. */
export interface Policy {
  readonly rules: readonly PolicyRule[];
  readonly defaults: Readonly<Record<ToolRisk, Required<RiskDefault>>>;
  /** Set when the policy gates side effects of tainted runs. */
  readonly taint?: Readonly<Required<TaintOptions>>;
  /** Set on the view returned by {@link whenTainted}: every call is judged as tainted. */
  readonly tainted?: boolean;
}

/** The facts policy decides on. */
export interface PolicySubject {
  tool: { name: string; risk: ToolRisk; tags: readonly string[] };
  user: string;
  roles: readonly string[];
  /** The call's arguments, for rules with `when`; a rule with `when` never matches a subject without them. */
  args?: Readonly<Record<string, unknown>>;
  /** Untrusted content has entered the run's context. @default policy.tainted ?? false */
  tainted?: boolean;
}

/** The outcome for one call. */
export interface PolicyDecision {
  effect: PolicyEffect;
  /** Who may approve, with "$requester" already replaced by the user. Empty unless effect is "approve". */
  approvers: string[];
  /** What an approver may answer with. Empty unless effect is "approve". */
  decisions: ReviewDecision[];
  reason: string;
}

const DEFAULTS: Record<ToolRisk, Required<RiskDefault>> = {
  read: { effect: "allow", approvers: [REQUESTER] },
  write: { effect: "allow", approvers: [REQUESTER] },
  destructive: { effect: "approve", approvers: [REQUESTER] },
};

/**
 * Builds a policy from rules and per-risk defaults.
 * @example
 * const policy = definePolicy({ rules: [
 *   { tools: ["rollback_deployment"], effect: "approve", approvers: ["role:sre"] },
 *   { tools: ["delete_db"], roles: ["intern"], effect: "deny" },
 * ] });
 */
export function definePolicy(options: PolicyOptions = {}): Policy {
  const defaults = { ...DEFAULTS };
  for (const risk of Object.keys(DEFAULTS) as ToolRisk[]) {
    const given = options.defaults?.[risk];
    if (given) defaults[risk] = { effect: given.effect, approvers: given.approvers ?? [REQUESTER] };
  }
  const taint = options.taint === true ? {} : options.taint || undefined;
  return {
    rules: [...(options.rules ?? [])],
    defaults,
    ...(taint ? { taint: { risk: taint.risk ?? ["write", "destructive"], approvers: taint.approvers ?? [REQUESTER] } } : {}),
  };
}

/** The same policy, judging every call as made in a tainted run (a no-op without `taint`). */
export function whenTainted(policy: Policy): Policy {
  return policy.taint ? { ...policy, tainted: true } : policy;
}

/** The policy used when an agent declares none: defaults from risk only. */
export const defaultPolicy: Policy = definePolicy();

function matches(rule: PolicyRule, subject: PolicySubject): boolean {
  const { tool } = subject;
  if (rule.tools !== undefined && rule.tools !== "*" && !rule.tools.includes(tool.name)) return false;
  if (rule.tags !== undefined && !rule.tags.some((tag) => tool.tags.includes(tag))) return false;
  if (rule.risk !== undefined && !rule.risk.includes(tool.risk)) return false;
  if (rule.users !== undefined && !rule.users.includes(subject.user)) return false;
  if (rule.roles !== undefined && !rule.roles.some((role) => subject.roles.includes(role))) return false;
  if (rule.when !== undefined && (subject.args === undefined || !rule.when(subject.args))) return false;
  return true;
}

function resolveApprovers(approvers: readonly string[], requester: string): string[] {
  return [...new Set(approvers.map((a) => (a === REQUESTER ? requester : a)))];
}

/** Decides one call: the first matching rule, else the default for the tool's risk. */
export function evaluatePolicy(policy: Policy, subject: PolicySubject): PolicyDecision {
  const index = policy.rules.findIndex((rule) => matches(rule, subject));
  const rule = index >= 0 ? policy.rules[index] : undefined;
  const effect = rule?.effect ?? policy.defaults[subject.tool.risk].effect;
  const approvers = effect === "approve"
    ? resolveApprovers(rule ? (rule.approvers ?? [REQUESTER]) : policy.defaults[subject.tool.risk].approvers, subject.user)
    : [];
  const reason = rule?.reason
    ?? (rule ? `policy rule ${index + 1}: ${effect} for ${subject.tool.name}`
      : `default for ${subject.tool.risk} tools: ${effect}`);
  const tainted = subject.tainted ?? policy.tainted ?? false;
  if (effect === "allow" && tainted && policy.taint?.risk.includes(subject.tool.risk)) {
    return {
      effect: "approve",
      approvers: resolveApprovers(policy.taint.approvers, subject.user),
      decisions: [...ALL_REVIEW_DECISIONS],
      reason: `untrusted content (tool results or documents) is in this run's context, so ${subject.tool.risk} tool ${subject.tool.name} needs approval (policy taint)`,
    };
  }
  const decisions = effect === "approve" ? [...(rule?.decisions ?? ALL_REVIEW_DECISIONS)] : [];
  return { effect, approvers, decisions, reason };
}

/** The identity of someone deciding an approval. */
export interface Approver {
  by: string;
  /** Roles of the approver, matched against "role:NAME" entries. @default [] */
  roles?: readonly string[];
}

/** True when `approver` is one of the resolved `approvers` (a user id, "role:NAME" or "*"). */
export function isApproverAllowed(approvers: readonly string[], approver: Approver): boolean {
  const roles = approver.roles ?? [];
  return approvers.some((entry) =>
    entry === "*" || entry === approver.by || (entry.startsWith("role:") && roles.includes(entry.slice(5))));
}
