/**
 * `agentrt/tools` — the pieces under `defineTool`: argument hashing, call validation, executors, tool messages and
 * tool discovery. Reach for these when writing your own tool node or executor; `defineTool` itself is at the root.
 * @module
 */
export {
  ToolRegistry, argsHash, canonicalJson, validateToolCall, executeTool, idempotencyKey, toolContext, asToolError,
  createResilientExecutor, toolResultMessage, readEnvelope, ToolIndex,
} from "../tools/index.js";
export type {
  ToolDefinition, RawToolCall, ValidatedCall, ToolCallScope, ToolExecutor, ToolOutcome, ResilientExecutorOptions,
  ExternalDataEnvelope, ToolResultMessageOptions, ToolStepStatus, ToolSelectOptions,
} from "../tools/index.js";
export type { ToolGuard, ToolAttemptEvent } from "../tools/tool-guard.js";
export type { LedgerEntry, LedgerStatus } from "../ledger/index.js";
