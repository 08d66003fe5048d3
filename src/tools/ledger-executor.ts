/**
 * Puts side-effecting tool calls through the ledger when agentrt runs them
 * (the run scope carries the database): intent before the call, the result
 * and external operation id after, replay instead of a second call, and
 * UNKNOWN_OUTCOME when a tool that cannot dedupe was issued without a result.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";
import { ToolError } from "../errors.js";
import { argsHash } from "./args-hash.js";
import { asToolError, type ToolExecutor, type ToolOutcome } from "./execute-tool.js";
import { callThroughLedger } from "./ledger-call.js";
import { ToolLedger } from "./ledger.js";

const ledgers = new WeakMap<SqliteDatabase, ToolLedger>();

/** The ledger on a connection, opened (and migrated) once per connection. */
export function ledgerFor(db: SqliteDatabase): ToolLedger {
  let ledger = ledgers.get(db);
  if (ledger === undefined) {
    ledger = ToolLedger.open(db);
    ledgers.set(db, ledger);
  }
  return ledger;
}

/** True for the error that must stop the run for a person instead of going back to the model. */
export function isUnknownOutcome(error: unknown): error is ToolError {
  return error instanceof ToolError && error.code === "UNKNOWN_OUTCOME";
}

/**
 * Wraps `inner` (one call with its retries) in the ledger for tools with
 * `sideEffect: true` when `scope.db` is set; other calls pass straight through.
 * UNKNOWN_OUTCOME is thrown, not returned, so the model cannot re-plan the
 * action under a new call id: the run fails with that code for a person to check.
 */
export function withLedger(inner: ToolExecutor): ToolExecutor {
  return async (tool, args, scope) => {
    // Only a real connection can hold the ledger (a host may hand tools a stand-in handle).
    if (!tool.sideEffect || typeof scope.db?.prepare !== "function") return inner(tool, args, scope);
    const ledger = ledgerFor(scope.db);
    let last: ToolOutcome | undefined;
    try {
      const done = await callThroughLedger(
        ledger,
        {
          runId: scope.runId, toolCallId: scope.toolCallId, actionVersion: scope.actionVersion ?? 1,
          tool: tool.name, argsHash: argsHash(tool.name, args), idempotent: tool.idempotent,
        },
        async () => {
          last = await inner(tool, args, scope);
          if (!last.ok) throw last.error;
          return { result: last.result, externalOperationId: last.externalOperationId ?? null };
        },
      );
      return {
        ok: true, result: done.result, externalOperationId: done.externalOperationId ?? undefined,
        attempts: done.replayed ? 0 : last?.attempts ?? 1,
      };
    } catch (error) {
      if (last !== undefined && !last.ok && error === last.error) return last;
      if (isUnknownOutcome(error)) throw error;
      return { ok: false, error: asToolError(tool, error), externalOperationId: undefined, attempts: last?.attempts ?? 0 };
    }
  };
}
