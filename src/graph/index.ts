/**
 * Agent graphs: state, the model-turn, tool fan-out and approval nodes, and
 * `defineAgent`, which assembles them.
 * @module
 */
export { defineAgent, AGENT_NODES } from "./define-agent.js";
export type { AgentLimits, DefineAgentOptions } from "./define-agent.js";
export { AgentState } from "./state.js";
export type { AgentStateUpdate, AgentStateValue, AgentStopError, ToolStep, Usage } from "./state.js";
export { createModelTurnNode, buildContext, readUsage } from "./model-turn.js";
export type { ModelTurnOptions, ToolSelection } from "./model-turn.js";
export { createToolNode, routeToolCalls, toolTasksFrom } from "./fanout/index.js";
export type { ToolNodeOptions, ToolTask } from "./fanout/index.js";
export {
  actionIdFor, awaitApproval, checkResume, readPendingActions, resumeCommand, validateResume,
} from "./approval.js";
export type { ApprovalRequest, ApprovalResume, PendingAction, ResumeCheck } from "./approval.js";
export { resolveRunScope } from "./run-config.js";
export type { AgentConfigurable, AgentRunConfig, AgentRunContext, RunScope } from "./run-config.js";
export type { AgentHooks, ModelCallEvent, ToolCallEvent, ToolRetryEvent } from "./hooks.js";
