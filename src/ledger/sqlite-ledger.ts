/**
 * The side-effect ledger on SQLite: the `tool_ledger` table of the run's database file. The methods are the
 * synchronous better-sqlite3 code they always were, behind the async {@link ToolLedger} interface.
 * @module
 */
import { immediateTransaction, migrate, type SqliteDatabase } from "../db/index.js";
import { SystemError } from "../errors.js";
import { decideExisting, ledgerKey, type LedgerBegin, type LedgerBeginInput, type LedgerGuarded, type LedgerTransaction, type ToolLedger } from "./ledger.js";
import { encodeLedgerError, LEDGER_SCHEMA, rowToLedgerEntry, type LedgerEntry, type LedgerStatus } from "./schema.js";

/** Durable intents and results of side-effecting tool calls in a SQLite file. */
export class SqliteToolLedger implements ToolLedger {
  readonly db: SqliteDatabase;
  private readonly clock: () => number;
  private readonly tx: LedgerTransaction;

  private constructor(db: SqliteDatabase, clock: () => number) {
    this.db = db;
    this.clock = clock;
    this.tx = { backend: "sqlite", db };
  }

  /**
   * Migrates the ledger table and returns a ledger over `db`.
   * @example const ledger = SqliteToolLedger.open(db);
   */
  static open(db: SqliteDatabase, options: { clock?: () => number } = {}): SqliteToolLedger {
    migrate(db, LEDGER_SCHEMA);
    return new SqliteToolLedger(db, options.clock ?? Date.now);
  }

  /**
   * Writes the intent (or reads the previous one) and says whether to call the tool. The guard runs
   * synchronously inside the BEGIN IMMEDIATE transaction of the intent, so the fence and the write are atomic.
   */
  async begin(input: LedgerBeginInput): Promise<LedgerBegin> {
    const key = ledgerKey(input);
    const run = immediateTransaction(this.db, (): LedgerBegin => {
      this.runGuard(input.guard);
      const now = this.clock();
      const existing = this.getNow(key);
      if (existing === undefined) {
        this.db
          .prepare(
            `INSERT INTO tool_ledger (idempotency_key, run_id, tool_call_id, action_version, tool, args_hash, idempotent,
               status, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?)`,
          )
          .run(key, input.runId, input.toolCallId, input.actionVersion ?? 1, input.tool, input.argsHash, input.idempotent ? 1 : 0, now, now);
        return { kind: "new", key, attempt: 1 };
      }
      const decided = decideExisting(existing, input);
      if (decided !== "write") return decided;
      this.db
        .prepare("UPDATE tool_ledger SET status = 'pending', attempts = attempts + 1, updated_at = ? WHERE idempotency_key = ?")
        .run(now, key);
      const attempt = existing.attempts + 1;
      return existing.status === "failed" ? { kind: "new", key, attempt } : { kind: "reissue", key, attempt };
    });
    return run();
  }

  /** Records the result and the external operation id; the first recorded result wins. A guard shares its transaction. */
  async complete(key: string, outcome: { result: unknown; externalOperationId?: string | null }, options: LedgerGuarded = {}): Promise<LedgerEntry> {
    const now = this.clock();
    this.guarded(options, () => this.db
      .prepare(
        `UPDATE tool_ledger SET status = 'done', result_json = ?, external_operation_id = ?, updated_at = ?, completed_at = ?
         WHERE idempotency_key = ? AND status != 'done'`,
      )
      .run(JSON.stringify(outcome.result ?? null), outcome.externalOperationId ?? null, now, now, key));
    return this.require(key);
  }

  /**
   * Records a failure. `definite` (default) means the side effect surely did
   * not happen, so a later begin() may call again; pass `definite: false` for
   * timeouts and aborts, which leave the outcome unknown. A guard shares its transaction.
   */
  async fail(key: string, error: unknown, options: { definite?: boolean } & LedgerGuarded = {}): Promise<LedgerEntry> {
    const status: LedgerStatus = options.definite === false ? "pending" : "failed";
    this.guarded(options, () => this.db
      .prepare("UPDATE tool_ledger SET status = ?, error_json = ?, updated_at = ? WHERE idempotency_key = ? AND status != 'done'")
      .run(status, encodeLedgerError(error), this.clock(), key));
    return this.require(key);
  }

  /** The entry for a key, if any. */
  async get(key: string): Promise<LedgerEntry | undefined> {
    return this.getNow(key);
  }

  /** A run's calls in the order they were begun; `status: "done"` lists the side effects that happened. */
  async list(runId: string, options: { status?: LedgerStatus } = {}): Promise<LedgerEntry[]> {
    const rows =
      options.status === undefined
        ? this.db.prepare("SELECT * FROM tool_ledger WHERE run_id = ? ORDER BY rowid").all(runId)
        : this.db.prepare("SELECT * FROM tool_ledger WHERE run_id = ? AND status = ? ORDER BY rowid").all(runId, options.status);
    return rows.map(rowToLedgerEntry);
  }

  private getNow(key: string): LedgerEntry | undefined {
    const row = this.db.prepare("SELECT * FROM tool_ledger WHERE idempotency_key = ?").get(key);
    return row === undefined ? undefined : rowToLedgerEntry(row);
  }

  /** Runs `write` alone, or after the guard in one BEGIN IMMEDIATE transaction so the fence and the write are atomic. */
  private guarded({ guard }: LedgerGuarded, write: () => unknown): void {
    if (guard === undefined) {
      write();
      return;
    }
    immediateTransaction(this.db, () => {
      this.runGuard(guard);
      write();
    })();
  }

  /** Runs a guard in the open transaction; an async guard is refused, as its fence would not be atomic. */
  private runGuard(guard: LedgerGuarded["guard"]): void {
    const returned: unknown = guard?.(this.tx);
    if (returned === undefined) return;
    if (typeof (returned as { then?: unknown }).then === "function") {
      // Its own failure has nobody to report to: the refusal below is what the caller sees.
      (returned as Promise<unknown>).then(undefined, () => undefined);
      throw new SystemError("INTERNAL", "tool ledger: on SQLite a guard must be synchronous (it runs inside the write's transaction)");
    }
  }

  private require(key: string): LedgerEntry {
    const entry = this.getNow(key);
    if (entry === undefined) throw new SystemError("INTERNAL", `tool ledger: no intent recorded for ${key}`);
    return entry;
  }
}
