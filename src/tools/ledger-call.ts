/**
 * The ledger protocol around one side-effecting call: intent → call with the
 * key → result (or failure), and the recovery cases. The executor wraps its
 * single attempt in {@link callThroughLedger}.
 * @module
 */
import type { LedgerBeginInput, ToolLedger } from "./ledger.js";

/** What the wrapped call returns: its result and the external system's operation id. */
export interface LedgerCallResult {
  result: unknown;
  externalOperationId?: string | null;
}

/** What {@link callThroughLedger} returns. */
export interface LedgerCallOutcome {
  result: unknown;
  externalOperationId: string | null;
  /** True when the result came from the ledger and the tool was not called. */
  replayed: boolean;
  /** The ledger's attempt number for this call (0 when replayed). */
  attempt: number;
}

/** Options of {@link callThroughLedger}. */
export interface LedgerCallOptions {
  /**
   * Whether a thrown error means the side effect surely did not happen.
   * @default true, except for timeouts, cancels and aborts (outcome unknown)
   */
  isDefiniteFailure?: (error: unknown) => boolean;
}

// A connection dropped mid-call says nothing about whether the other side acted.
const UNKNOWN_OUTCOME_CODES = new Set(["TOOL_TIMEOUT", "CANCELED", "LEASE_LOST", "ABORT_ERR", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);

/** Default of `isDefiniteFailure`: timeouts and aborts leave the outcome unknown. */
export function isDefiniteFailure(error: unknown): boolean {
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return !(typeof code === "string" && UNKNOWN_OUTCOME_CODES.has(code));
}

/**
 * Performs `call(key, attempt)` at most once per ledger key: a recorded
 * result is returned without calling; an intent without a result is
 * re-issued with the same key for an idempotent tool, and for any other
 * tool throws the `ToolError` UNKNOWN_OUTCOME (a person must decide).
 * @example
 * const { result } = await callThroughLedger(ledger, { runId, toolCallId, tool: "rollback", argsHash, idempotent: true },
 *   (key) => deploy.rollback(args, { idempotencyKey: key }));
 */
export async function callThroughLedger(
  ledger: ToolLedger,
  input: LedgerBeginInput,
  call: (key: string, attempt: number) => Promise<LedgerCallResult>,
  options: LedgerCallOptions = {},
): Promise<LedgerCallOutcome> {
  const begun = ledger.begin(input);
  if (begun.kind === "replay-result") {
    return { result: begun.result, externalOperationId: begun.externalOperationId, replayed: true, attempt: 0 };
  }
  if (begun.kind === "unknown-outcome") throw begun.error;
  let done: LedgerCallResult;
  try {
    done = await call(begun.key, begun.attempt);
  } catch (error) {
    ledger.fail(begun.key, error, { definite: (options.isDefiniteFailure ?? isDefiniteFailure)(error) });
    throw error;
  }
  const entry = ledger.complete(begun.key, done);
  // complete() keeps the first recorded result; return what the ledger holds so every caller sees the same.
  return { result: entry.result, externalOperationId: entry.externalOperationId, replayed: false, attempt: begun.attempt };
}
