/**
 * Abort plumbing shared by the resilience primitives.
 * @module
 */
import { ToolError } from "../errors.js";

/**
 * The error a wait rejects with when its signal aborts: the signal's reason
 * when it is a real error (e.g. a TOOL_TIMEOUT), else a `ToolError` CANCELED.
 */
export function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  // abort() without a reason yields a bare DOMException AbortError: give it our stable code.
  if (reason instanceof Error && reason.name !== "AbortError") return reason;
  return new ToolError("CANCELED", "the call was canceled", reason === undefined ? {} : { cause: reason });
}

/** Throws the abort reason when `signal` has already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

/** True for errors that mean "the caller gave up", which must not count as a tool failure. */
export function isAbortError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === "AbortError" || code === "CANCELED" || code === "ABORT_ERR";
}
