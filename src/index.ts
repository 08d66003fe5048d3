/**
 * agentrt — an agent runtime on LangGraph.js. The root holds what defining and running agents needs; the
 * building blocks are at documented subpaths (`agentrt/tools`, `agentrt/graph`, `agentrt/resilience`, `agentrt/trace`,
 * `agentrt/db`, `agentrt/workspace`, `agentrt/testing`, `agentrt/checkpointers`). Anything else is internal.
 * @module
 */
// Errors: one hierarchy, each with a stable `code`.
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
export { IllegalTransitionError, LeaseLostError, UnknownRunError, BudgetExceededError } from "./runs/index.js";
export type { LeaseLossReason } from "./runs/index.js";
export { LedgerWriteError } from "./ledger/index.js";
export { DagCompileError, DagStateConflictError } from "./graph/dag/index.js";
export { ToolRefError } from "./graph/fanout/index.js";
export { packageVersion } from "./version.js";

// Defining an agent: its tools, its policy, the agent graph or a declared DAG.
export { defineTool } from "./tools/index.js";
export type { AgentTool, ToolContext, ToolLimitSpec, ToolRetryPolicy, ToolRisk, ToolSpec } from "./tools/index.js";
export { definePolicy, defaultPolicy, REQUESTER, whenTainted } from "./policy/index.js";
export { withApprovalPolicy } from "./graph/foreign-policy.js";
export type {
  Approver, Policy, PolicyDecision, PolicyEffect, PolicyOptions, PolicyRule, PolicySubject, RiskDefault, TaintOptions,
  ReviewDecision,
} from "./policy/index.js";
export { defineAgent, AgentState, readPendingActions, resumeCommand } from "./graph/index.js";
export type {
  AgentLimits, DefineAgentOptions, AgentStateUpdate, AgentStateValue, AgentStopError, ToolStep, Usage,
  ApprovalResume, PendingAction, AgentConfigurable, AgentRunConfig, AgentHooks, ModelCallEvent, ToolCallEvent,
  ToolRetryEvent,
} from "./graph/index.js";
export type { ContextOptions } from "./graph/context-budget.js";
export { defineDag } from "./graph/dag/index.js";
export type {
  CompiledDag, DagCompileOptions, DagNodeContext, DagNodeFn, DagNodeOptions, DagProblem, DagStateField, DagStateSpec,
  DefineDagOptions,
} from "./graph/dag/index.js";

// Models: the offline scripted model, OpenAI, and the choice between them from the environment.
export { ScriptedChatModel } from "./models/scripted-model.js";
export type { ChatScript, ScriptedReply, ScriptedToolCall, ScriptInput } from "./models/scripted-model.js";
export { createOpenAIModel, DEFAULT_OPENAI_MODEL } from "./models/openai-model.js";
export type { OpenAIModelOptions } from "./models/openai-model.js";
export { modelFromEnv, resolveModelChoice } from "./models/model-from-env.js";
export type { ModelChoice, ModelFromEnvOptions } from "./models/model-from-env.js";

// Running it: the runtime, its run views and statuses, the checkpointer and store it keeps them in.
export { Runtime, GraphRegistry, StreamBus } from "./runtime/index.js";
export type {
  RuntimeOptions, SubmitOptions, DecisionOptions, InputOptions, CanceledRunView, InputRequest, InputResume, SideEffectView,
  GraphEntry, RegisteredGraph, RunView, PendingActionView, RuntimeEvent, RuntimeListener, StreamChunk, StreamListener,
  StreamBusOptions, DecisionInput, ResumeOptions, CreateRunOptions, CreatedRun, CreateIdempotency, MultitaskStrategy,
} from "./runtime/index.js";
export { RUN_STATUSES, isTerminal, isWaiting } from "./runs/index.js";
export type { RunStatus, RunUsage, RunBudget, RunGraphConfig, RunFilter } from "./runs/index.js";
export { SqliteSaver } from "../checkpointers/index.js";
export type { SqliteSaverOptions, SqliteDurability } from "../checkpointers/index.js";
export { SqliteStore } from "./memory/sqlite-store.js";
export type { SqliteStoreOptions, SqlitePutOperation } from "./memory/sqlite-store.js";
export { PostgresStore } from "./memory/postgres-store.js";
export type { PostgresStoreOptions } from "./memory/postgres-store.js";
export type { MemoryStore, MemoryStoreOptions } from "./memory/memory-store.js";
