/**
 * The side-effect ledger: an intent row is written before a side-effecting
 * tool runs and its result after, keyed by run id + tool call id + action
 * version, so a call is performed at most once per key and recovery knows
 * whether a call happened.
 * @module
 */
import { immediateTransaction, migrate, type SqliteDatabase } from "../db/index.js";
import { SystemError, ToolError } from "../errors.js";
import { idempotencyKey } from "../tools/execute-tool.js";
import { encodeLedgerError, LEDGER_SCHEMA, rowToLedgerEntry, type LedgerEntry, type LedgerStatus } from "./schema.js";

export type { LedgerEntry, LedgerStatus } from "./schema.js";

/** Identifies one action: the key is derived from these three. */
export interface LedgerKeyParts {
  runId: string;
  toolCallId: string;
  /** Bumped when the same tool call is deliberately re-planned as a new action. @default 1 */
  actionVersion?: number;
}

/** What {@link ToolLedger.begin} records about the call. */
export interface LedgerBeginInput extends LedgerKeyParts {
  tool: string;
  /** sha256 of the canonical JSON arguments; a replay with other arguments is refused. */
  argsHash: string;
  /** Whether the external system dedupes on the key, so a re-issue is safe. */
  idempotent: boolean;
  /**
   * Runs inside the same transaction before anything is written; throw to
   * refuse, e.g. `() => lease.check()` so a worker whose lease was taken over
   * cannot record a new intent. @default none
   */
  guard?: () => void;
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

/** The key a tool receives as `ctx.idempotencyKey` (same function the executor uses). */
export function ledgerKey(parts: LedgerKeyParts): string {
  return idempotencyKey(parts.runId, parts.toolCallId, parts.actionVersion ?? 1);
}

/** Durable intents and results of side-effecting tool calls. */
export class ToolLedger {
  readonly db: SqliteDatabase;
  private readonly clock: () => number;

  private constructor(db: SqliteDatabase, clock: () => number) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Migrates the ledger table and returns a ledger over `db`.
   * @example const ledger = ToolLedger.open(db);
   */
  static open(db: SqliteDatabase, options: { clock?: () => number } = {}): ToolLedger {
    migrate(db, LEDGER_SCHEMA);
    return new ToolLedger(db, options.clock ?? Date.now);
  }

  /** Writes the intent (or reads the previous one) and says whether to call the tool. */
  begin(input: LedgerBeginInput): LedgerBegin {
    const key = ledgerKey(input);
    const run = immediateTransaction(this.db, (): LedgerBegin => {
      input.guard?.();
      const now = this.clock();
      const existing = this.get(key);
      if (existing === undefined) {
        this.db
          .prepare(
            `INSERT INTO tool_ledger (idempotency_key, run_id, tool_call_id, action_version, tool, args_hash, idempotent,
               status, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?)`,
          )
          .run(key, input.runId, input.toolCallId, input.actionVersion ?? 1, input.tool, input.argsHash, input.idempotent ? 1 : 0, now, now);
        return { kind: "new", key, attempt: 1 };
      }
      assertSameAction(existing, input);
      if (existing.status === "done") {
        return { kind: "replay-result", key, result: existing.result, externalOperationId: existing.externalOperationId };
      }
      // Only the attempt count the person saw: a replay of an older confirmation does not re-issue again.
      if (existing.status === "pending" && !input.idempotent && input.confirmedReissue !== existing.attempts) {
        return { kind: "unknown-outcome", key, entry: existing, error: unknownOutcomeError(existing) };
      }
      this.db
        .prepare("UPDATE tool_ledger SET status = 'pending', attempts = attempts + 1, updated_at = ? WHERE idempotency_key = ?")
        .run(now, key);
      const attempt = existing.attempts + 1;
      return existing.status === "failed" ? { kind: "new", key, attempt } : { kind: "reissue", key, attempt };
    });
    return run();
  }

  /** Records the result and the external operation id; the first recorded result wins. */
  complete(key: string, outcome: { result: unknown; externalOperationId?: string | null }): LedgerEntry {
    const now = this.clock();
    this.db
      .prepare(
        `UPDATE tool_ledger SET status = 'done', result_json = ?, external_operation_id = ?, updated_at = ?, completed_at = ?
         WHERE idempotency_key = ? AND status != 'done'`,
      )
      .run(JSON.stringify(outcome.result ?? null), outcome.externalOperationId ?? null, now, now, key);
    return this.require(key);
  }

  /**
   * Records a failure. `definite` (default) means the side effect surely did
   * not happen, so a later begin() may call again; pass `definite: false` for
   * timeouts and aborts, which leave the outcome unknown.
   */
  fail(key: string, error: unknown, options: { definite?: boolean } = {}): LedgerEntry {
    const status: LedgerStatus = options.definite === false ? "pending" : "failed";
    this.db
      .prepare("UPDATE tool_ledger SET status = ?, error_json = ?, updated_at = ? WHERE idempotency_key = ? AND status != 'done'")
      .run(status, encodeLedgerError(error), this.clock(), key);
    return this.require(key);
  }

  /** The entry for a key, if any. */
  get(key: string): LedgerEntry | undefined {
    const row = this.db.prepare("SELECT * FROM tool_ledger WHERE idempotency_key = ?").get(key);
    return row === undefined ? undefined : rowToLedgerEntry(row);
  }

  /** A run's calls in the order they were begun; `status: "done"` lists the side effects that happened. */
  list(runId: string, options: { status?: LedgerStatus } = {}): LedgerEntry[] {
    const rows =
      options.status === undefined
        ? this.db.prepare("SELECT * FROM tool_ledger WHERE run_id = ? ORDER BY rowid").all(runId)
        : this.db.prepare("SELECT * FROM tool_ledger WHERE run_id = ? AND status = ? ORDER BY rowid").all(runId, options.status);
    return rows.map(rowToLedgerEntry);
  }

  private require(key: string): LedgerEntry {
    const entry = this.get(key);
    if (entry === undefined) throw new SystemError("INTERNAL", `tool ledger: no intent recorded for ${key}`);
    return entry;
  }
}

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
