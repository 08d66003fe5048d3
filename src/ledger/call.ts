/**
 * The ledger protocol around one side-effecting call: intent → call with the
 * key → result (or failure), and the recovery cases. The executor wraps its
 * single attempt in {@link callThroughLedger}.
 * @module
 */
import { AgentrtError, StorageError, isNotPerformed } from "../errors.js";
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
   * @default true, except for timeouts, cancels, aborts and dropped connections (outcome unknown)
   */
  isDefiniteFailure?: (error: unknown) => boolean;
}

/**
 * The ledger itself could not be read or written (busy or broken file): a
 * run-level storage failure, never a tool failure the model sees.
 */
export class LedgerWriteError extends StorageError {
  constructor(what: string, cause: unknown) {
    super("DB_WRITE_FAILED", `tool ledger: could not ${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

// A connection dropped mid-call says nothing about whether the other side acted.
const UNKNOWN_OUTCOME_CODES = new Set(["TOOL_TIMEOUT", "CANCELED", "LEASE_LOST", "ABORT_ERR", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);

function unknownOutcomeSign(error: unknown): boolean {
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && UNKNOWN_OUTCOME_CODES.has(code);
}

/**
 * Default of `isDefiniteFailure`: timeouts, aborts and dropped connections
 * leave the outcome unknown, also when wrapped (a TOOL_FAILED whose `cause`
 * is an ECONNRESET is still a reset) — unless the call says it was stopped
 * before it was performed (`NotPerformedError`, whose cause is the abort).
 */
export function isDefiniteFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (isNotPerformed(current)) return true;
    if (unknownOutcomeSign(current)) return false;
    current = current instanceof Error ? current.cause : undefined;
  }
  return true;
}

/** Runs a ledger read/write; anything but an agentrt error (a refusal) becomes a {@link LedgerWriteError}. */
async function write<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AgentrtError) throw error;
    throw new LedgerWriteError(what, error);
  }
}

/**
 * Performs `call(key, attempt)` at most once per ledger key: a recorded
 * result is returned without calling; an intent without a result is
 * re-issued with the same key for an idempotent tool (or one a person
 * confirmed), and for any other tool throws the `ToolError` UNKNOWN_OUTCOME
 * (a person must decide). The call's own error is rethrown as it was; a
 * failing ledger write throws {@link LedgerWriteError}.
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
  const begun = await write("record the intent", () => ledger.begin(input));
  const guard = input.outcomeGuard ?? input.guard;
  if (begun.kind === "replay-result") {
    return { result: begun.result, externalOperationId: begun.externalOperationId, replayed: true, attempt: 0 };
  }
  if (begun.kind === "unknown-outcome") throw begun.error;
  let done: LedgerCallResult;
  try {
    done = await call(begun.key, begun.attempt);
  } catch (error) {
    const definite = (options.isDefiniteFailure ?? isDefiniteFailure)(error);
    // Fenced as the intent was: a holder that lost its run meanwhile must not fail (or finish) the new holder's attempt.
    await write("record the failure", () => ledger.fail(begun.key, error, { definite, guard }));
    throw error;
  }
  const entry = await write("record the result", () => ledger.complete(begun.key, done, { guard }));
  // complete() keeps the first recorded result; return what the ledger holds so every caller sees the same.
  return { result: entry.result, externalOperationId: entry.externalOperationId, replayed: false, attempt: begun.attempt };
}
