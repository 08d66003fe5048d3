/**
 * agentrt — an agent runtime on LangGraph.js. The public API lives here;
 * everything not re-exported from this file is internal.
 * @module
 */
export {
  AgentrtError,
  UserInputError,
  StorageError,
  ModelBehaviorError,
  ToolError,
  SystemError,
  isUserInputError,
  TransientToolError,
  isTransientError,
  NotPerformedError,
  isNotPerformed,
} from "./errors.js";
export type { AgentrtErrorCode, AgentrtErrorOptions } from "./errors.js";
export { openDatabase, migrate } from "./db/index.js";
export type { SqliteDatabase, OpenDatabaseOptions, ModuleSchema, Migration } from "./db/index.js";
export { packageVersion } from "./version.js";
export {
  RUN_STATUSES, RUN_TRANSITIONS, isTerminal, isWaiting, IllegalTransitionError, LeaseLostError, UnknownRunError,
} from "./runs/index.js";
export type { RunStatus, RunRecord, RunEvent, RunUsage, RunBudget, RunGraphConfig, RunOutcome, LeaseLossReason, RunFilter } from "./runs/index.js";
export { BudgetExceededError, BUDGET_ERROR_CODES, exhaustedBudget, validateBudget } from "./runs/index.js";
export type { ExhaustedLimit } from "./runs/index.js";
export type { RunGuard, ModelCallRequest } from "./graph/run-guard.js";
export type { ToolGuard, ToolAttemptEvent } from "./tools/tool-guard.js";
export { LedgerWriteError } from "./ledger/index.js";
export type { LedgerEntry, LedgerStatus } from "./ledger/index.js";
export {
  defineTool, ToolRegistry, argsHash, canonicalJson, validateToolCall, executeTool, idempotencyKey,
  toolResultMessage, readEnvelope, createResilientExecutor, toolContext, asToolError, ToolIndex,
} from "./tools/index.js";
export type {
  AgentTool, ToolContext, ToolRetryPolicy, ToolRisk, ToolSpec, ToolDefinition, RawToolCall, ValidatedCall,
  ToolCallScope, ToolOutcome, ExternalDataEnvelope, ToolResultMessageOptions, ToolStepStatus, ToolExecutor,
  ResilientExecutorOptions, ToolSelectOptions,
} from "./tools/index.js";
export { definePolicy, defaultPolicy, evaluatePolicy, isApproverAllowed, REQUESTER, whenTainted } from "./policy/index.js";
export { isTainted } from "./graph/context-taint.js";
export { fitContext, estimateTokens } from "./graph/context-budget.js";
export type { ContextOptions, ContextTrim } from "./graph/context-budget.js";
export type { ContextTrimEvent } from "./graph/hooks.js";
export type {
  Approver, Policy, PolicyDecision, PolicyEffect, PolicyOptions, PolicyRule, PolicySubject, RiskDefault, TaintOptions,
} from "./policy/index.js";
export {
  defineAgent, AGENT_NODES, AgentState, createModelTurnNode, buildContext, readUsage, createToolNode,
  routeToolCalls, toolTasksFrom, actionIdFor, awaitApproval, checkResume, readPendingActions, resumeCommand,
  validateResume, resolveRunScope,
} from "./graph/index.js";
export type {
  AgentLimits, DefineAgentOptions, AgentStateUpdate, AgentStateValue, AgentStopError, ToolStep, Usage,
  ModelTurnOptions, ToolSelection, ToolNodeOptions, ToolTask, ApprovalRequest, ApprovalResume, PendingAction,
  ResumeCheck, AgentConfigurable, AgentRunConfig, AgentRunContext, RunScope, AgentHooks, ModelCallEvent,
  ToolCallEvent, ToolRetryEvent,
} from "./graph/index.js";
export { defineDag, DagBuilder, DagCompileError, DagStateConflictError } from "./graph/dag/index.js";
export type {
  CompiledDag, DagCompileOptions, DagNodeContext, DagNodeFn, DagNodeOptions, DagProblem, DagStateField, DagStateSpec,
  DefineDagOptions,
} from "./graph/dag/index.js";
export {
  ToolRefError, planToolCalls, resolveArgs, findRefs, isToolRef, parseRefPath, describeProblem, canonicalRefs, toolRefCode,
} from "./graph/fanout/index.js";
export type { PlannedCall, ToolCallPlan, ToolRef, ToolRefCode, ToolRefProblem } from "./graph/fanout/index.js";
export { ScriptedChatModel } from "./models/scripted-model.js";
export type { ChatScript, ScriptedReply, ScriptedToolCall, ScriptInput } from "./models/scripted-model.js";
export { createOpenAIModel, DEFAULT_OPENAI_MODEL } from "./models/openai-model.js";
export type { OpenAIModelOptions } from "./models/openai-model.js";
export { modelFromEnv, resolveModelChoice } from "./models/model-from-env.js";
export type { ModelChoice, ModelFromEnvOptions } from "./models/model-from-env.js";
export {
  withRetry, backoffDelay, resolveRetryPolicy, withTimeout, CircuitBreaker, CircuitBreakerRegistry,
  circuitBreakers, TokenBucket, RateLimiterRegistry, ConcurrencyLimiter, ConcurrencyRegistry, ToolLimits,
  toolLimits, callWithResilience, fallbackWorthy, ManualClock, systemClock,
} from "./resilience/index.js";
export type {
  RetryEvent, WithRetryOptions, ResolvedRetryPolicy, WithTimeoutOptions, CircuitBreakerOptions,
  CircuitSnapshot, CircuitState, TokenBucketOptions, ToolLimitOptions, ResilientCallOptions, Clock,
} from "./resilience/index.js";
export { SqliteStore } from "./memory/sqlite-store.js";
export type { SqliteStoreOptions, SqlitePutOperation } from "./memory/sqlite-store.js";
export { Workspace } from "./workspace/workspace.js";
export type { WorkspaceOptions, WorkspaceEntry } from "./workspace/workspace.js";
export { workspaceTools } from "./workspace/workspace-tools.js";
export type { WorkspaceTools, WorkspaceToolsOptions } from "./workspace/workspace-tools.js";
export {
  openTraceStore, TraceStore, TraceRecorder, priceFor, lookupPrice, resolvePricing, loadPricingFile, DEFAULT_PRICING,
  SCRIPTED_MODEL, redactArgs, renderTraceTree, SPAN_KINDS,
} from "./trace/index.js";
export type {
  TraceStoreOptions, RecorderOptions, StartSpanOptions, EndSpanOptions, SpanHandle, ModelCallRecord, ToolCallRecord,
  SpanKind, SpanStatus, SpanAttributes, TraceSpan, ModelPrice, PricingTable, TokenUsage, Cost, RenderOptions,
  StatsOptions, TraceStats, ToolStats, GraphStats, RunStats, UsageTotals,
} from "./trace/index.js";
export { Runtime, GraphRegistry, StreamBus } from "./runtime/index.js";
export type {
  RuntimeOptions, SubmitOptions, DecisionOptions, InputOptions, CanceledRunView, InputRequest, InputResume, SideEffectView,
  GraphEntry, RegisteredGraph, RunView, PendingActionView, RuntimeEvent, RuntimeListener, StreamChunk, StreamListener,
  StreamBusOptions, DecisionInput, ResumeOptions, CreateRunOptions, CreatedRun, MultitaskStrategy,
} from "./runtime/index.js";
