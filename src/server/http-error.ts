/**
 * Errors become HTTP responses here and only here: a stable `code`, a
 * message, and the status chosen by who is to blame.
 * @module
 */
import { connectionFailure, storageFailure } from "../db/index.js";
import { AgentrtError, isUserInputError, type AgentrtErrorCode, type AgentrtErrorOptions } from "../errors.js";

/** An error with an explicit HTTP status (400, 401, 404, 409, 413, 422). */
export class HttpError extends AgentrtError {
  readonly status: number;

  constructor(status: number, code: AgentrtErrorCode, message: string, options: AgentrtErrorOptions = {}) {
    super(code, message, options);
    this.status = status;
  }
}

const STATUS_BY_CODE: Partial<Record<AgentrtErrorCode, number>> = {
  BAD_INPUT: 422,
  UNKNOWN_GRAPH: 404,
  // The server's own langgraph.json names a graph that does not load: not the client's fault.
  GRAPH_LOAD_FAILED: 500,
  UNKNOWN_RUN: 404,
  UNKNOWN_THREAD: 404,
  UNKNOWN_ACTION: 409,
  ARGS_HASH_MISMATCH: 409,
  APPROVER_NOT_ALLOWED: 403,
  NOT_OWNER: 403,
  DECISION_NOT_ALLOWED: 422,
  EDIT_ARGS_INVALID: 422,
  RUN_NOT_WAITING: 409,
  RUN_FINISHED: 409,
  THREAD_BUSY: 409,
  THREAD_EXISTS: 409,
  THREAD_NOT_INTERRUPTED: 409,
  ILLEGAL_TRANSITION: 409,
  UNAUTHORIZED: 401,
  // The server's disk, not the request: 507 while it is full, 503 while it refuses reads or writes.
  STORAGE_FULL: 507,
  STORAGE_IO_ERROR: 503,
  // The server's PostgreSQL, not the request: unavailable until it answers (or accepts the server's role) again.
  DB_UNREACHABLE: 503,
  DB_CONNECTION_LOST: 503,
  DB_AUTH_FAILED: 503,
};

/** The status and JSON body an error is answered with. */
export function errorResponse(thrown: unknown): { status: number; body: { error: string; code: string; message: string; details?: unknown } } {
  if (thrown instanceof HttpError) {
    return { status: thrown.status, body: { error: thrown.code, code: thrown.code, message: thrown.message, details: thrown.details } };
  }
  // SQLite's full or failing disk, raw or wrapped (a ledger write), and a lost PostgreSQL connection wrapped in
  // another error get their stable code rather than INTERNAL.
  const error = storageFailure(thrown) ?? connectionFailure(thrown) ?? thrown;
  if (error instanceof AgentrtError) {
    const status = STATUS_BY_CODE[error.code] ?? (isUserInputError(error) ? 422 : 500);
    return { status, body: { error: error.code, code: error.code, message: error.message, details: error.details } };
  }
  const message = error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error);
  return { status: 500, body: { error: "INTERNAL", code: "INTERNAL", message } };
}
