/**
 * `agentrt/graph` — the building blocks `defineAgent` and `defineDag` are made of: the model-turn and tool nodes,
 * the approval interrupt and its checks, context fitting and taint, the `$ref` planner of linked tool calls.
 * For composing your own LangGraph graph from agentrt's parts; `defineAgent`/`defineDag` are at the root.
 * @module
 */
export {
  AGENT_NODES, createModelTurnNode, buildContext, readUsage, createToolNode, routeToolCalls, toolTasksFrom,
  actionIdFor, awaitApproval, checkResume, validateResume, resolveRunScope,
} from "../graph/index.js";
export type { ModelTurnOptions, ToolSelection, ToolNodeOptions, ToolTask, ApprovalRequest, ResumeCheck, RunScope } from "../graph/index.js";
export type { AgentRunContext } from "../graph/run-config.js";
export type { RunGuard, ModelCallRequest } from "../graph/run-guard.js";
export { isTainted } from "../graph/context-taint.js";
export { fitContext, estimateTokens } from "../graph/context-budget.js";
export type { ContextTrim } from "../graph/context-budget.js";
export type { ContextTrimEvent } from "../graph/hooks.js";
export { DagBuilder } from "../graph/dag/index.js";
export {
  planToolCalls, resolveArgs, findRefs, isToolRef, parseRefPath, describeProblem, canonicalRefs, toolRefCode,
} from "../graph/fanout/index.js";
export type { PlannedCall, ToolCallPlan, ToolRef, ToolRefCode, ToolRefProblem } from "../graph/fanout/index.js";
export { evaluatePolicy, isApproverAllowed } from "../policy/index.js";
export { hitlRequestFields, hitlToDecisions, isHitlResponse } from "../graph/hitl.js";
export type { HitlActionRequest, HitlReviewConfig, HitlRequestFields, HitlDecision, HitlTarget, DecisionFromHitl } from "../graph/hitl.js";
export type { ApprovalInterrupt } from "../graph/approval.js";
