/**
 * Puts side-effecting tool calls through the ledger when agentrt runs them
 * (the run scope carries the database): intent before the call, the result
 * and external operation id after, replay instead of a second call, and
 * UNKNOWN_OUTCOME when a tool that cannot dedupe may or may not have acted.
 * @module
 */
import { isSqliteDatabase, type SqliteDatabase } from "../db/index.js";
import { PostgresDatabase } from "../db/postgres/index.js";
import { AgentrtError, SystemError, ToolError } from "../errors.js";
import { LeaseLostError } from "../runs/errors.js";
import { argsHash } from "../tools/args-hash.js";
import { asToolError, type ToolExecutor, type ToolOutcome } from "../tools/execute-tool.js";
import { callThroughLedger, isDefiniteFailure, LedgerWriteError } from "./call.js";
import { ledgerKey, unknownOutcomeError, type LedgerBeginInput, type LedgerTransaction } from "./ledger.js";
import { SqliteToolLedger } from "./sqlite-ledger.js";

const ledgers = new WeakMap<SqliteDatabase, SqliteToolLedger>();

/** The ledger on a connection, opened (and migrated) once per connection. */
export function ledgerFor(db: SqliteDatabase): SqliteToolLedger {
  let ledger = ledgers.get(db);
  if (ledger === undefined) {
    ledger = SqliteToolLedger.open(db);
    ledgers.set(db, ledger);
  }
  return ledger;
}

/** True for the error that must stop the run for a person instead of going back to the model. */
export function isUnknownOutcome(error: unknown): error is ToolError {
  return error instanceof ToolError && error.code === "UNKNOWN_OUTCOME";
}

/** What an UNKNOWN_OUTCOME failure says about the call, for whoever asks a person. */
export interface UnknownOutcomeInfo {
  /** The idempotency key a re-issue uses. */
  key: string;
  /** Times the call was issued; confirm a re-issue with this number (`ToolCallScope.confirmedReissue`). */
  attempts: number;
  message: string;
}

/** The details of an UNKNOWN_OUTCOME outcome, or undefined for any other outcome. */
export function unknownOutcomeOf(outcome: ToolOutcome): UnknownOutcomeInfo | undefined {
  if (outcome.ok || outcome.error.code !== "UNKNOWN_OUTCOME") return undefined;
  const details = outcome.error.details ?? {};
  return {
    key: typeof details.key === "string" ? details.key : "",
    attempts: typeof details.attempts === "number" ? details.attempts : 1,
    message: outcome.error.message,
  };
}

/**
 * Wraps `inner` (one call with its retries) in the ledger for tools with
 * `sideEffect: true` when the scope has a ledger (or a SQLite `db`); other calls pass straight through.
 * A tool that cannot dedupe and may have acted (a timeout or dropped
 * connection here, or an intent without result found on recovery) comes back
 * as the failure UNKNOWN_OUTCOME, which the agent turns into a question for a
 * person, never into a message the model could re-plan from. A failing ledger
 * write throws (a run-level storage error, DB_WRITE_FAILED), as does any
 * other refusal of the ledger (e.g. ARGS_HASH_MISMATCH).
 */
export function withLedger(inner: ToolExecutor): ToolExecutor {
  return async (tool, args, scope) => {
    // The runtime hands its backend's ledger; else only a real SQLite connection can hold one (a host may hand
    // tools a stand-in handle).
    const ledger = scope.ledger ?? (isSqliteDatabase(scope.db) ? ledgerFor(scope.db) : undefined);
    if (tool.sideEffect && ledger === undefined && scope.db instanceof PostgresDatabase) {
      // Run without its ledger, a retried side effect could happen twice: refuse rather than lose exactly-once.
      throw new SystemError("INTERNAL", `${tool.name}: a side-effecting call on PostgreSQL needs the run's ledger (context.ledger)`);
    }
    if (!tool.sideEffect || ledger === undefined) return inner(tool, args, scope);
    const input: LedgerBeginInput = {
      runId: scope.runId, toolCallId: scope.toolCallId, actionVersion: scope.actionVersion ?? 1,
      tool: tool.name, argsHash: argsHash(tool.name, args), idempotent: tool.idempotent, confirmedReissue: scope.confirmedReissue,
      // Fenced: the intent is written only while the run's lease is held (checked in the same transaction).
      ...(scope.guard?.assertHeld === undefined ? {} : {
        guard: (tx: LedgerTransaction) => scope.guard?.assertHeld?.(tx),
        outcomeGuard: (tx: LedgerTransaction) => unlessTakenOver(() => scope.guard?.assertHeld?.(tx)),
      }),
    };
    let last: ToolOutcome | undefined;
    let thrown: { error: unknown } | undefined;
    try {
      const done = await callThroughLedger(ledger, input, async () => {
        try {
          last = await inner(tool, args, scope);
        } catch (error) {
          thrown = { error };
          throw error;
        }
        // The raw cause decides whether the outcome is known: wrapping it as TOOL_FAILED must not make it "definite".
        if (!last.ok) throw last.error;
        return { result: last.result, externalOperationId: last.externalOperationId ?? null };
      });
      return {
        ok: true, result: done.result, externalOperationId: done.externalOperationId ?? undefined,
        attempts: done.replayed ? 0 : last?.attempts ?? 1,
      };
    } catch (error) {
      if (isUnknownOutcome(error)) return { ok: false, error, externalOperationId: undefined, attempts: 0 };
      if (thrown !== undefined && error === thrown.error) return { ok: false, error: asToolError(tool, error), externalOperationId: undefined, attempts: 1 };
      if (last === undefined || last.ok || error !== last.error) throw error instanceof AgentrtError ? error : new LedgerWriteError("run the call", error);
      // A canceled run keeps its own error: recovery finds the pending intent and asks then.
      if (tool.idempotent || isDefiniteFailure(last.error) || scope.signal?.aborted) return last;
      const entry = await ledger.get(ledgerKey(input));
      return entry === undefined ? last : { ...last, error: unknownOutcomeError(entry, last.error) };
    }
  };
}

/**
 * The fence of a call's result or failure: refused only once another worker has claimed the run (its token moved
 * on), as that holder may have re-issued the call and its attempt must stand. A run canceled, finished or merely
 * expired under this holder keeps what this holder alone knows: the call was or was not performed.
 */
function unlessTakenOver(check: () => void | Promise<void>): void | Promise<void> {
  const allowUnlessTakenOver = (error: unknown): void => {
    if (!(error instanceof LeaseLostError) || error.reason === "taken-over") throw error;
  };
  let checked: void | Promise<void>;
  try {
    checked = check();
  } catch (error) {
    allowUnlessTakenOver(error);
    return;
  }
  return checked instanceof Promise ? checked.catch(allowUnlessTakenOver) : checked;
}
