/**
 * Tool-call policy: allow, deny or require approval.
 * @module
 */
export { definePolicy, defaultPolicy, evaluatePolicy, isApproverAllowed, REQUESTER, whenTainted } from "./policy.js";
export type {
  Approver, Policy, PolicyDecision, PolicyEffect, PolicyOptions, PolicyRule, PolicySubject, RiskDefault, TaintOptions,
  ReviewDecision,
} from "./policy.js";
