/**
 * The side-effect ledger: an intent row is written before a side-effecting
 * tool runs and its result after, keyed by run id + tool call id + action
 * version, so a call is performed at most once per key and recovery knows
 * whether a call happened.
 * @module
 */
import type { StoreTransaction } from "../db/index.js";
import { SystemError, ToolError } from "../errors.js";
import { idempotencyKey } from "../tools/execute-tool.js";
import type { LedgerEntry, LedgerStatus } from "./schema.js";

export type { LedgerEntry, LedgerStatus } from "./schema.js";

/** Identifies one action: the key is derived from these three. */
export interface LedgerKeyParts {
  runId: string;
  toolCallId: string;
  /** Bumped when the same tool call is deliberately re-planned as a new action. @default 1 */
  actionVersion?: number;
}

/**
 * The transaction a begin guard runs in, so a fence it checks there commits, or refuses, together with the
 * intent: the SQLite connection inside its write transaction, or the PostgreSQL transaction's client.
 */
export type LedgerTransaction = StoreTransaction;

/** A fence for a write of the ledger (see {@link LedgerBeginInput.guard}): the writer's lease check, in the write's transaction. */
export interface LedgerGuarded {
  /** Runs inside the write's transaction first; throw (or reject) to refuse it. Same rules as the begin guard. @default none */
  guard?: (tx: LedgerTransaction) => void | Promise<void>;
}

/** What {@link ToolLedger.begin} records about the call. */
export interface LedgerBeginInput extends LedgerKeyParts {
  tool: string;
  /** sha256 of the canonical JSON arguments; a replay with other arguments is refused. */
  argsHash: string;
  /** Whether the external system dedupes on the key, so a re-issue is safe. */
  idempotent: boolean;
  /**
   * Runs inside the same transaction before anything is written; throw (or reject) to refuse, e.g.
   * `() => lease.assertHeld()` so a worker whose lease was taken over cannot record a new intent. On SQLite it
   * must be synchronous (the transaction cannot span an await; a returned Promise is refused as INTERNAL); on
   * PostgreSQL it may await queries on `tx.client`, the transaction's own client. @default none
   */
  guard?: (tx: LedgerTransaction) => void | Promise<void>;
  /** Fences the call's result or failure as `guard` fences the intent. @default guard */
  outcomeGuard?: (tx: LedgerTransaction) => void | Promise<void>;
  /**
   * A person confirmed re-issuing a call whose outcome is unknown after this
   * many attempts: a pending intent of a tool that cannot dedupe is then
   * re-issued with the same key (once; a later unknown outcome asks again). @default none
   */
  confirmedReissue?: number;
}

/** What the caller must do next, decided from what the ledger already holds. */
export type LedgerBegin =
  /** No previous attempt (or only definite failures): call the tool with `key`. */
  | { kind: "new"; key: string; attempt: number }
  /** The call already completed: use `result`, do not call the tool. */
  | { kind: "replay-result"; key: string; result: unknown; externalOperationId: string | null }
  /** An earlier attempt has no outcome but the tool dedupes: call it again with the same `key`. */
  | { kind: "reissue"; key: string; attempt: number }
  /** An earlier attempt has no outcome and the tool cannot dedupe: a person must decide. */
  | { kind: "unknown-outcome"; key: string; entry: LedgerEntry; error: ToolError };

/**
 * Durable intents and results of side-effecting tool calls; each method is one atomic unit of its backend
 * (`SqliteToolLedger` on the run's SQLite file, `PostgresToolLedger` on a PostgreSQL schema).
 */
export interface ToolLedger {
  /** Writes the intent (or reads the previous one) and says whether to call the tool. */
  begin(input: LedgerBeginInput): Promise<LedgerBegin>;
  /**
   * Records the result and the external operation id; the first recorded result wins. With a guard (the caller's
   * lease check), a caller whose run was taken over meanwhile writes nothing: the new holder's attempt stands.
   */
  complete(key: string, outcome: { result: unknown; externalOperationId?: string | null }, options?: LedgerGuarded): Promise<LedgerEntry>;
  /**
   * Records a failure. `definite` (default) means the side effect surely did not happen, so a later begin()
   * may call again; pass `definite: false` for timeouts and aborts, which leave the outcome unknown. Guarded as
   * {@link complete} is.
   */
  fail(key: string, error: unknown, options?: { definite?: boolean } & LedgerGuarded): Promise<LedgerEntry>;
  /** The entry for a key, if any. */
  get(key: string): Promise<LedgerEntry | undefined>;
  /** A run's calls in the order they were begun; `status: "done"` lists the side effects that happened. */
  list(runId: string, options?: { status?: LedgerStatus }): Promise<LedgerEntry[]>;
}

/** The key a tool receives as `ctx.idempotencyKey` (same function the executor uses). */
export function ledgerKey(parts: LedgerKeyParts): string {
  return idempotencyKey(parts.runId, parts.toolCallId, parts.actionVersion ?? 1);
}

/**
 * What begin() answers for a key that already has an entry: its result, UNKNOWN_OUTCOME, or "write" when the
 * intent is written again (after a definite failure, or as a re-issue the tool dedupes or a person confirmed).
 */
export function decideExisting(existing: LedgerEntry, input: LedgerBeginInput): Extract<LedgerBegin, { kind: "replay-result" | "unknown-outcome" }> | "write" {
  assertSameAction(existing, input);
  if (existing.status === "done") {
    return { kind: "replay-result", key: existing.key, result: existing.result, externalOperationId: existing.externalOperationId };
  }
  // Only the attempt count the person saw: a replay of an older confirmation does not re-issue again.
  if (existing.status === "pending" && !input.idempotent && input.confirmedReissue !== existing.attempts) {
    return { kind: "unknown-outcome", key: existing.key, entry: existing, error: unknownOutcomeError(existing) };
  }
  return "write";
}

/** Refuses a key begun before as another tool or with other arguments (ARGS_HASH_MISMATCH). */
function assertSameAction(existing: LedgerEntry, input: LedgerBeginInput): void {
  if (existing.tool === input.tool && existing.argsHash === input.argsHash) return;
  throw new SystemError(
    "ARGS_HASH_MISMATCH",
    `tool ledger: ${existing.key} was begun as ${existing.tool} ${existing.argsHash}, now ${input.tool} ${input.argsHash}`,
    { details: { key: existing.key, tool: existing.tool, argsHash: existing.argsHash, newTool: input.tool, newArgsHash: input.argsHash } },
  );
}

/**
 * The UNKNOWN_OUTCOME error of a pending intent whose tool cannot dedupe;
 * `cause` is what cut the call short when this process saw it (a timeout, a reset).
 */
export function unknownOutcomeError(entry: LedgerEntry, cause?: unknown): ToolError {
  const why = cause === undefined
    ? "was issued but its outcome was never recorded"
    : `did not report back (${cause instanceof Error ? cause.message : JSON.stringify(cause) ?? "no reason given"})`;
  return new ToolError("UNKNOWN_OUTCOME", `${entry.tool} (${entry.key}) ${why}, and the tool cannot dedupe a re-issue`, {
    ...(cause === undefined ? {} : { cause }),
    details: { key: entry.key, tool: entry.tool, runId: entry.runId, toolCallId: entry.toolCallId, attempts: entry.attempts },
  });
}
