/**
 * The side-effect ledger on PostgreSQL: the `tool_ledger` table of a schema. begin() is one conditional
 * upsert (a new intent, or the intent written again after a definite failure or as an allowed re-issue);
 * only when the existing entry forbids a write (done, unknown outcome, other arguments) is it read back.
 * @module
 */
import type { PgQueryable, PostgresDatabase } from "../db/postgres/index.js";
import { migrateOnce } from "../db/postgres/index.js";
import { SystemError } from "../errors.js";
import { decideExisting, ledgerKey, type LedgerBegin, type LedgerBeginInput, type LedgerGuarded, type ToolLedger } from "./ledger.js";
import { PG_LEDGER_SCHEMA } from "./postgres-schema.js";
import { encodeLedgerError, rowToLedgerEntry, type LedgerEntry, type LedgerStatus } from "./schema.js";

// The row as the SQLite table gives it (epoch ms and attempts as numbers, idempotent as 0/1), for rowToLedgerEntry.
const COLUMNS = `idempotency_key, run_id, tool_call_id, action_version, tool, args_hash, idempotent::int AS idempotent, status,
  attempts, result_json, external_operation_id, error_json, created_at::float8 AS created_at, updated_at::float8 AS updated_at,
  completed_at::float8 AS completed_at`;

// The write is allowed after a definite failure, or for a pending intent the tool dedupes or a person confirmed
// at its current attempt count ($9 NULL: none); a conflicting row that fails the WHERE is left as it is.
const BEGIN = `
INSERT INTO tool_ledger AS l (idempotency_key, run_id, tool_call_id, action_version, tool, args_hash, idempotent,
  status, begun_as, attempts, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 'new', 1, $8, $8)
ON CONFLICT (idempotency_key) DO UPDATE SET status = 'pending', attempts = l.attempts + 1, updated_at = excluded.updated_at,
  begun_as = CASE WHEN l.status = 'failed' THEN 'new' ELSE 'reissue' END
WHERE l.tool = excluded.tool AND l.args_hash = excluded.args_hash
  AND (l.status = 'failed' OR (l.status = 'pending' AND (excluded.idempotent OR l.attempts = $9::int)))
RETURNING begun_as, attempts`;

const COMPLETE = `UPDATE tool_ledger SET status = 'done', result_json = $2, external_operation_id = $3, updated_at = $4, completed_at = $4
WHERE idempotency_key = $1 AND status <> 'done' RETURNING ${COLUMNS}`;

const FAIL = `UPDATE tool_ledger SET status = $2, error_json = $3, updated_at = $4
WHERE idempotency_key = $1 AND status <> 'done' RETURNING ${COLUMNS}`;

/** Rounds of upsert-then-read a begin may need when other writers keep changing the entry in between. */
const BEGIN_ROUNDS = 5;

/** Durable intents and results of side-effecting tool calls in a PostgreSQL schema. */
export class PostgresToolLedger implements ToolLedger {
  readonly db: PostgresDatabase;
  private readonly clock: () => number;
  readonly #migrate: () => Promise<void>;

  /** A ledger on `db`; its table is created or migrated by {@link PostgresToolLedger.setup} (or the first operation). */
  constructor(db: PostgresDatabase, options: { clock?: () => number } = {}) {
    this.db = db;
    this.#migrate = migrateOnce(db, PG_LEDGER_SCHEMA);
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Migrates the ledger table in `db`'s schema and returns a ledger over it.
   * @example const ledger = await PostgresToolLedger.open(db);
   */
  static async open(db: PostgresDatabase, options: { clock?: () => number } = {}): Promise<PostgresToolLedger> {
    const ledger = new PostgresToolLedger(db, options);
    await ledger.setup();
    return ledger;
  }

  /** Creates or migrates the ledger table once (DB_SCHEMA_TOO_NEW for a newer schema); later calls cost nothing. */
  setup(): Promise<void> {
    return this.#migrate();
  }

  /**
   * Writes the intent (or reads the previous one) and says whether to call the tool. With a guard, the guard and
   * the write share one transaction, and the guard gets its client (`tx.client`) to check a fence there; without
   * one, the upsert runs alone (one round trip for a new call).
   */
  async begin(input: LedgerBeginInput): Promise<LedgerBegin> {
    await this.setup();
    const { guard } = input;
    if (guard === undefined) return this.decide(this.db, input);
    return this.db.transaction(async (client) => {
      await guard({ backend: "postgres", client });
      return this.decide(client, input);
    });
  }

  /** Records the result and the external operation id; the first recorded result wins. A guard shares its transaction. */
  async complete(key: string, outcome: { result: unknown; externalOperationId?: string | null }, options: LedgerGuarded = {}): Promise<LedgerEntry> {
    await this.setup();
    const values = [key, JSON.stringify(outcome.result ?? null), outcome.externalOperationId ?? null, this.clock()];
    return this.written(key, await this.guarded(options, (on) => on.query(COMPLETE, values)));
  }

  /**
   * Records a failure. `definite` (default) means the side effect surely did not happen, so a later begin()
   * may call again; pass `definite: false` for timeouts and aborts, which leave the outcome unknown.
   */
  async fail(key: string, error: unknown, options: { definite?: boolean } & LedgerGuarded = {}): Promise<LedgerEntry> {
    await this.setup();
    const status: LedgerStatus = options.definite === false ? "pending" : "failed";
    return this.written(key, await this.guarded(options, (on) => on.query(FAIL, [key, status, encodeLedgerError(error), this.clock()])));
  }

  /** The entry for a key, if any. */
  async get(key: string): Promise<LedgerEntry | undefined> {
    await this.setup();
    return readEntry(this.db, key);
  }

  /** A run's calls in the order they were begun; `status: "done"` lists the side effects that happened. */
  async list(runId: string, options: { status?: LedgerStatus } = {}): Promise<LedgerEntry[]> {
    await this.setup();
    const { rows } =
      options.status === undefined
        ? await this.db.query(`SELECT ${COLUMNS} FROM tool_ledger WHERE run_id = $1 ORDER BY seq`, [runId])
        : await this.db.query(`SELECT ${COLUMNS} FROM tool_ledger WHERE run_id = $1 AND status = $2 ORDER BY seq`, [runId, options.status]);
    return rows.map(rowToLedgerEntry);
  }

  private async decide(on: PgQueryable, input: LedgerBeginInput): Promise<LedgerBegin> {
    const key = ledgerKey(input);
    const values = [
      key, input.runId, input.toolCallId, input.actionVersion ?? 1, input.tool, input.argsHash, input.idempotent,
      this.clock(), input.confirmedReissue ?? null,
    ];
    for (let round = 0; round < BEGIN_ROUNDS; round++) {
      const row = await this.insertIntent(on, values);
      if (row !== undefined) return { kind: row.begun_as, key, attempt: row.attempts };
      const existing = await readEntry(on, key);
      if (existing === undefined) continue;
      const decided = decideExisting(existing, input);
      if (decided !== "write") return decided;
      // Another writer changed the entry between the two statements (failed it, say): decide again.
    }
    throw new SystemError("INTERNAL", `tool ledger: ${key} kept changing while its intent was being written`);
  }

  /**
   * The BEGIN statement's row, or undefined when the entry exists and was left alone. Two begins of one key at once
   * can race past ON CONFLICT: PostgreSQL settles the race on the arbiter index (the key) only, and the other unique
   * index (run, call, version) may refuse the second insert instead. That entry exists now, so outside a transaction
   * this is a conflict like any other; inside one, the error has aborted the transaction and goes to its caller.
   */
  private async insertIntent(on: PgQueryable, values: unknown[]): Promise<{ begun_as: "new" | "reissue"; attempts: number } | undefined> {
    try {
      return (await on.query<{ begun_as: "new" | "reissue"; attempts: number }>(BEGIN, values)).rows[0];
    } catch (error) {
      if (on === this.db && (error as { code?: unknown }).code === "23505") return undefined;
      throw error;
    }
  }

  /** Runs `write` alone (one round trip), or after the guard in one transaction so the fence commits with it. */
  private guarded<T>({ guard }: LedgerGuarded, write: (on: PgQueryable) => Promise<T>): Promise<T> {
    if (guard === undefined) return write(this.db);
    return this.db.transaction(async (client) => {
      await guard({ backend: "postgres", client });
      return write(client);
    });
  }

  /** The entry an UPDATE … RETURNING wrote, or (a done entry it left alone) the entry as it is now. */
  private async written(key: string, result: { rows: unknown[] }): Promise<LedgerEntry> {
    const row = result.rows[0];
    const entry = row === undefined ? await readEntry(this.db, key) : rowToLedgerEntry(row);
    if (entry === undefined) throw new SystemError("INTERNAL", `tool ledger: no intent recorded for ${key}`);
    return entry;
  }
}

async function readEntry(on: PgQueryable, key: string): Promise<LedgerEntry | undefined> {
  const { rows } = await on.query(`SELECT ${COLUMNS} FROM tool_ledger WHERE idempotency_key = $1`, [key]);
  return rows[0] === undefined ? undefined : rowToLedgerEntry(rows[0]);
}
