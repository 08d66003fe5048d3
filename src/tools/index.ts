/**
 * Tools: declaration, registry, validation of model calls, execution and the
 * external-data envelope of results.
 * @module
 */
export { defineTool } from "./define-tool.js";
export type { AgentTool, ToolContext, ToolLimitSpec, ToolRetryPolicy, ToolRisk, ToolSpec } from "./define-tool.js";
export { ToolRegistry } from "./registry.js";
export type { ToolDefinition } from "./registry.js";
export { argsHash, canonicalJson } from "./args-hash.js";
export { validateToolCall } from "./validate-call.js";
export type { RawToolCall, ValidatedCall } from "./validate-call.js";
export { executeTool, idempotencyKey, toolContext, asToolError } from "./execute-tool.js";
export type { ToolCallScope, ToolExecutor, ToolOutcome } from "./execute-tool.js";
export { createResilientExecutor } from "./resilient-executor.js";
export type { ResilientExecutorOptions } from "./resilient-executor.js";
export { toolResultMessage, readEnvelope } from "./tool-message.js";
export type { ExternalDataEnvelope, ToolResultMessageOptions, ToolStepStatus } from "./tool-message.js";
export { ToolIndex } from "./discovery.js";
export type { ToolSelectOptions } from "./discovery.js";
