/**
 * Which failures of a call say something about the tool, for its circuit breaker.
 * @module
 */
import { connectionFailure } from "../db/connection-failure.js";
import { isAbortError } from "./abort.js";

/**
 * True unless the failure is a cancellation or agentrt's own database going away (DB_UNREACHABLE,
 * DB_CONNECTION_LOST, or an error caused by one). A database restart fails every call in flight that touches the
 * runtime's storage: counted, those failures opened the circuit, and the runs retried after the restart were refused
 * a tool that had never failed.
 */
export function countsAgainstTool(error: unknown): boolean {
  return !isAbortError(error) && connectionFailure(error) === undefined;
}
