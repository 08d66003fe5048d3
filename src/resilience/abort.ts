/**
 * Abort plumbing shared by the resilience primitives.
 * @module
 */
import { AgentrtError, NotPerformedError, ToolError, isNotPerformed } from "../errors.js";

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

/**
 * Rejects with `stopped` (a timeout, a cancel) for a call cut short, one event-loop turn later: a call that honours
 * its signal has settled by then, and if it says it was never performed (`NotPerformedError`), the rejection says so
 * with `stopped`'s code, so the ledger records a failure instead of an unknown outcome. A call that ignores its
 * signal changes nothing: the caller still stops at once.
 */
export function rejectStopped(call: Promise<unknown>, stopped: Error, reject: (error: Error) => void): void {
  call.catch((cause: unknown) => {
    if (!isNotPerformed(cause)) return;
    const code = stopped instanceof AgentrtError ? stopped.code : "CANCELED";
    reject(new NotPerformedError(code, `${stopped.message}, before it was performed`, {
      cause, ...(stopped instanceof AgentrtError && stopped.details !== undefined ? { details: stopped.details } : {}),
    }));
  });
  setImmediate(() => reject(stopped));
}
