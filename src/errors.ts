/**
 * One error hierarchy for agentrt. Every error carries a stable `code` that
 * scripts can rely on; classes are split by who is to blame.
 * @module
 */

/** Every stable error code agentrt can raise. */
export type AgentrtErrorCode =
  // user input (CLI flags, HTTP bodies, approvals)
  | "BAD_INPUT"
  | "DAG_INVALID"
  | "UNKNOWN_GRAPH"
  | "GRAPH_LOAD_FAILED"
  | "UNKNOWN_RUN"
  | "UNKNOWN_ACTION"
  | "ARGS_HASH_MISMATCH"
  | "APPROVER_NOT_ALLOWED"
  | "NOT_OWNER"
  | "DECISION_NOT_ALLOWED"
  | "EDIT_ARGS_INVALID"
  | "RUN_NOT_WAITING"
  | "RUN_FINISHED"
  | "IDEMPOTENCY_KEY_REUSED"
  // server (HTTP API)
  | "UNKNOWN_THREAD"
  | "THREAD_BUSY"
  | "THREAD_EXISTS"
  | "THREAD_NOT_INTERRUPTED"
  | "THREAD_STATE_UNREADABLE"
  | "UNAUTHORIZED"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "HOST_NOT_ALLOWED"
  | "ORIGIN_NOT_ALLOWED"
  // storage
  | "DB_OPEN_FAILED"
  | "DB_CORRUPT"
  | "DB_SCHEMA_TOO_NEW"
  | "DB_READ_ONLY"
  | "DB_WRITE_FAILED"
  | "DB_URL_INVALID"
  | "DB_UNREACHABLE"
  | "DB_AUTH_FAILED"
  | "DB_CONNECTION_LOST"
  | "STORAGE_FULL"
  | "STORAGE_IO_ERROR"
  // model behaviour
  | "MODEL_OUTPUT_INVALID"
  | "MODEL_UNAVAILABLE"
  // tools
  | "TOOL_UNKNOWN"
  | "TOOL_ARGS_INVALID"
  | "TOOL_FAILED"
  | "TOOL_TIMEOUT"
  | "TOOL_REF_MISSING"
  | "TOOL_REF_CYCLE"
  | "TOOL_REF_BAD_PATH"
  | "TOOL_REF_FAILED"
  | "PERMISSION_DENIED"
  | "UNKNOWN_OUTCOME"
  | "CIRCUIT_OPEN"
  | "SIM_FAULT"
  // workspace
  | "PATH_OUTSIDE_WORKSPACE"
  | "WORKSPACE_FILE_NOT_FOUND"
  | "WORKSPACE_LIMIT_EXCEEDED"
  // runs
  | "ILLEGAL_TRANSITION"
  | "LEASE_LOST"
  | "ATTEMPTS_EXHAUSTED"
  | "BUDGET_EXCEEDED"
  | "BUDGET_STEPS"
  | "BUDGET_MODEL_CALLS"
  | "BUDGET_TOKENS"
  | "BUDGET_COST"
  | "DEADLINE_EXCEEDED"
  | "MAX_STEPS_EXCEEDED"
  | "RECURSION_LIMIT"
  | "CANCELED"
  | "EXPIRED"
  | "INTERNAL";

/** Options shared by every agentrt error. */
export interface AgentrtErrorOptions {
  /** The underlying error, kept as ES2022 `cause`. */
  cause?: unknown;
  /** Structured details safe to print or return over HTTP. */
  details?: Record<string, unknown>;
}

/** Base class of every error agentrt throws on purpose. */
export class AgentrtError extends Error {
  readonly code: AgentrtErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: AgentrtErrorCode, message: string, options: AgentrtErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }
}

/** The caller gave bad input: a flag, a body, an approval. Maps to exit 2 / HTTP 4xx. */
export class UserInputError extends AgentrtError {}

/** The database could not be opened or is not one agentrt can use. */
export class StorageError extends AgentrtError {}

/** The model produced output agentrt cannot act on. */
export class ModelBehaviorError extends AgentrtError {}

/** The model's service could not be reached or refused for now (down, overloaded, rate-limited): not a bug here. */
export class ModelUnavailableError extends AgentrtError {
  readonly transient = true;
}

/** A tool call failed, timed out or was refused. */
export class ToolError extends AgentrtError {}

/** A tool failure a later attempt may cure (a 503, a dropped connection); retry policies retry it by default. */
export class TransientToolError extends ToolError {
  readonly transient = true;
}

/**
 * A tool call stopped before it reached the outside system (aborted while it waited for its latency, a slot
 * or a retry): its side effect surely did not happen, so the ledger records it failed, not "unknown".
 * Told by `performed === false` rather than by class, so a tool built on another copy of agentrt is heard too.
 */
export class NotPerformedError extends ToolError {
  readonly performed = false;
}

/** True when the error says its call was never performed (see {@link NotPerformedError}). */
export function isNotPerformed(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { performed?: unknown }).performed === false;
}

/** Codes (ours and Node's network codes) that mark a failure as worth retrying. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set(["TOOL_TIMEOUT", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN", "EPIPE"]);

/** True when a retry may cure the failure: `transient: true` on the error, or a transient `code`. */
export function isTransientError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { transient, code } = error as { transient?: unknown; code?: unknown };
  if (typeof transient === "boolean") return transient;
  return typeof code === "string" && TRANSIENT_CODES.has(code);
}

/** A bug or broken invariant inside agentrt itself. */
export class SystemError extends AgentrtError {}

/** True for errors that are the caller's fault (exit code 2). */
export function isUserInputError(error: unknown): error is UserInputError | StorageError {
  return error instanceof UserInputError || error instanceof StorageError;
}
