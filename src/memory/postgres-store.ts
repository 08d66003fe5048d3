/**
 * Long-term memory on PostgreSQL: the same `BaseStore` as {@link SqliteStore} (filters, lexical query, TTL,
 * namespace listing, ordering, errors), with each read one statement and a batch's writes one more.
 * @module
 */
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from "@langchain/langgraph-checkpoint";
import { migrateOnce, type PgQueryable, type PostgresDatabase } from "../db/postgres/index.js";
import { UserInputError } from "../errors.js";
import { compilePgFilter } from "./filter-pg.js";
import { queryTerms, searchText } from "./lexical-query.js";
import type { MemoryStore, MemoryStoreOptions } from "./memory-store.js";
import { pgMatchCondition, pgPrefixRange, pgTruncatedNamespace } from "./namespace-pg.js";
import { namespacePath } from "./namespace-sql.js";
import { PgParams } from "./pg-params.js";
import { memoryPgSchema } from "./postgres-schema.js";
import { type TtlPutOperation, validateOperation } from "./validate-operation.js";

/** How a {@link PostgresStore} keeps time and expires items (as a SqliteStore does). */
export type PostgresStoreOptions = MemoryStoreOptions;

interface Row {
  ns: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  score?: number | null;
}

const ITEM_COLUMNS = "ns_path, key, ns, value, created_at, updated_at";
/** Tries of a batch that loses deadlocks. */
const MAX_ATTEMPTS = 3;

/**
 * A PostgreSQL `BaseStore` over a {@link PostgresDatabase} (its tables in the database's schema, module "memory").
 * @example
 * const store = await PostgresStore.open(db, { defaultTtlMs: 86_400_000 });
 * const graph = builder.compile({ checkpointer, store });
 */
export class PostgresStore extends BaseStore implements MemoryStore {
  readonly db: PostgresDatabase;
  readonly #options: Required<Omit<PostgresStoreOptions, "defaultTtlMs">> & Pick<PostgresStoreOptions, "defaultTtlMs">;
  readonly #migrate: () => Promise<void>;

  /** A store on `db`; its tables are created or migrated by {@link PostgresStore.setup} (or the first operation). */
  constructor(db: PostgresDatabase, options: PostgresStoreOptions = {}) {
    super();
    this.db = db;
    this.#migrate = migrateOnce(db, memoryPgSchema);
    this.#options = { defaultTtlMs: options.defaultTtlMs, refreshOnRead: options.refreshOnRead ?? true, now: options.now ?? Date.now };
  }

  /** A store whose tables are ready: connects, creates or migrates them (DB_SCHEMA_TOO_NEW for a newer schema). */
  static async open(db: PostgresDatabase, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const store = new PostgresStore(db, options);
    await store.setup();
    return store;
  }

  /** Creates or migrates the memory tables once; later calls cost nothing. */
  setup(): Promise<void> {
    return this.#migrate();
  }

  /**
   * Runs the operations atomically (one transaction when they take more than one statement); reads see the state
   * before this batch's writes, as in InMemoryStore, and the last put of a key wins.
   */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    operations.forEach(validateOperation);
    await this.setup();
    const now = this.#options.now();
    const puts = new Map<string, TtlPutOperation>();
    const reads: { slot: number; run: (q: PgQueryable) => Promise<unknown> }[] = [];
    operations.forEach((op, slot) => {
      if ("value" in op) puts.set(`${namespacePath(op.namespace)}\u0000${op.key}`, op);
      else if ("namespacePrefix" in op) reads.push({ slot, run: (q) => this.#search(q, op, now) });
      else if ("key" in op) reads.push({ slot, run: (q) => this.#get(q, op, now) });
      else reads.push({ slot, run: (q) => this.#listNamespaces(q, op, now) });
    });
    const work = async (q: PgQueryable) => {
      const results: unknown[] = operations.map(() => undefined);
      for (const read of reads) results[read.slot] = await read.run(q);
      if (puts.size > 0) await this.#write(q, [...puts.values()], now);
      return results;
    };
    // One statement is atomic by itself: no BEGIN/COMMIT round trips for the common single get/put/search.
    const single = reads.length + (puts.size > 0 ? 1 : 0) <= 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return (await (single ? work(this.db) : this.db.transaction(work))) as OperationResults<Op>;
      } catch (error) {
        // Concurrent sweeps, upserts and TTL refreshes lock rows in no fixed order: the loser of a deadlock
        // retries the whole batch (every operation in it is idempotent).
        if ((error as { code?: unknown }).code === "40P01" && attempt < MAX_ATTEMPTS) continue;
        throw refusedInput(error) ?? error;
      }
    }
  }

  /** Like `BaseStore.put`, with an optional per-item time to live (`null`: never expires). */
  override async put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
    options: { ttlMs?: number | null } = {},
  ): Promise<void> {
    // Stricter than batch(): like every BaseStore, put refuses the reserved "langgraph" root.
    validateNamespace(namespace);
    const op: TtlPutOperation = { namespace, key, value, index, ttlMs: options.ttlMs };
    await this.batch([op]);
  }

  /** Deletes expired items now (they are already invisible to reads); resolves to how many. */
  async sweepExpired(): Promise<number> {
    await this.setup();
    const result = await this.db.query("DELETE FROM store_items WHERE expires_at <= $1::bigint", [this.#options.now()]);
    return result.rowCount ?? 0;
  }

  async #get(q: PgQueryable, op: GetOperation, now: number): Promise<Item | null> {
    const params = new PgParams();
    const hit = `SELECT ${ITEM_COLUMNS} FROM store_items
                 WHERE ns_path = ${params.add(namespacePath(op.namespace), "text")} AND key = ${params.add(op.key, "text")}
                   AND ${alive(params, now)}`;
    const { rows } = await q.query<Row>(this.#withRefresh(hit, params, now, ""), params.values);
    return rows[0] === undefined ? null : toItem(rows[0]);
  }

  async #search(q: PgQueryable, op: SearchOperation, now: number): Promise<SearchItem[]> {
    const params = new PgParams();
    const terms = op.query === undefined ? [] : queryTerms(op.query);
    // The share of the query's terms found in the item's search text (NULL without a query).
    const score =
      terms.length === 0
        ? "NULL::float8"
        : `(SELECT count(*) FROM unnest(${params.add(terms, "text[]")}) AS t(term) WHERE strpos(search_text, t.term) > 0)::float8 / ${terms.length}`;
    const where = [alive(params, now), pgPrefixRange(op.namespacePrefix, params), compilePgFilter(op.filter, params)].join(" AND ");
    const order = `${terms.length > 0 ? "score DESC, " : ""}updated_at DESC, ns_path, key`;
    const hit = `SELECT * FROM (SELECT ${ITEM_COLUMNS}, ${score} AS score FROM store_items WHERE ${where}) AS scored
                 ${terms.length > 0 ? "WHERE score > 0" : ""}
                 ORDER BY ${order} LIMIT ${params.add(op.limit ?? 10, "bigint")} OFFSET ${params.add(op.offset ?? 0, "bigint")}`;
    const { rows } = await q.query<Row>(this.#withRefresh(hit, params, now, `ORDER BY ${order}`), params.values);
    return rows.map((row) => ({ ...toItem(row), score: row.score ?? undefined }));
  }

  async #listNamespaces(q: PgQueryable, op: ListNamespacesOperation, now: number): Promise<string[][]> {
    const params = new PgParams();
    const where = [alive(params, now), ...(op.matchConditions ?? []).map((c) => pgMatchCondition(c, params))].join(" AND ");
    const cut = pgTruncatedNamespace(op.maxDepth, params);
    const { rows } = await q.query<{ ns: string[] }>(
      `SELECT ns FROM (SELECT DISTINCT ${cut} AS ns FROM store_items WHERE ${where}) AS listed
       ORDER BY array_to_string(ns, '.') COLLATE "C", ns
       LIMIT ${params.add(op.limit, "bigint")} OFFSET ${params.add(op.offset, "bigint")}`,
      params.values,
    );
    return rows.map((row) => row.ns);
  }

  /**
   * The rows `hit` selects, restarting the time to live of those that have one in the same statement (a
   * data-modifying CTE runs whether or not the outer query reads it).
   */
  #withRefresh(hit: string, params: PgParams, now: number, order: string): string {
    if (!this.#options.refreshOnRead) return `WITH hit AS (${hit}) SELECT * FROM hit ${order}`;
    return `WITH hit AS (${hit}),
            touched AS (UPDATE store_items AS s SET expires_at = ${params.add(now, "bigint")} + s.ttl_ms FROM hit
                        WHERE s.ns_path = hit.ns_path AND s.key = hit.key AND s.ttl_ms IS NOT NULL)
            SELECT * FROM hit ${order}`;
  }

  /**
   * The batch's puts and deletes, and the sweep of expired rows, in one statement. The three touch disjoint rows
   * (the sweep spares the batch's keys; a put of an expired key restarts the item through the upsert).
   */
  async #write(q: PgQueryable, ops: TtlPutOperation[], now: number): Promise<void> {
    const params = new PgParams();
    const paths = params.add(ops.map((op) => namespacePath(op.namespace)), "text[]");
    const keys = params.add(ops.map((op) => op.key), "text[]");
    const values = params.add(ops.map((op) => (op.value === null ? null : JSON.stringify(op.value))), "jsonb[]");
    // PostgreSQL text cannot hold NUL; the search text drops it (a query term never contains one).
    const texts = params.add(ops.map((op) => (op.value === null ? null : searchText(op.value, op.index)?.replaceAll("\u0000", "") ?? null)), "text[]");
    const ttls = params.add(ops.map((op) => this.#ttlOf(op)), "bigint[]");
    const at = params.add(now, "bigint");
    await q.query(
      `WITH input AS (SELECT * FROM unnest(${paths}, ${keys}, ${values}, ${texts}, ${ttls}) AS i(ns_path, key, value, search_text, ttl_ms)),
            swept AS (DELETE FROM store_items AS s WHERE s.expires_at <= ${at}
                        AND NOT EXISTS (SELECT 1 FROM input AS i WHERE i.ns_path = s.ns_path AND i.key = s.key)),
            deleted AS (DELETE FROM store_items AS s USING input AS i
                        WHERE i.value IS NULL AND s.ns_path = i.ns_path AND s.key = i.key)
       INSERT INTO store_items (ns_path, key, ns, value, search_text, created_at, updated_at, ttl_ms, expires_at)
       SELECT ns_path, key, string_to_array(left(ns_path, -1), '.'), value, search_text, ${at}, ${at}, ttl_ms, ${at} + ttl_ms
       FROM input WHERE value IS NOT NULL
       ON CONFLICT (ns_path, key) DO UPDATE SET
         value = excluded.value, search_text = excluded.search_text, updated_at = excluded.updated_at,
         ttl_ms = excluded.ttl_ms, expires_at = excluded.expires_at,
         created_at = CASE WHEN store_items.expires_at <= excluded.updated_at THEN excluded.created_at ELSE store_items.created_at END`,
      params.values,
    );
  }

  #ttlOf(op: TtlPutOperation): number | null {
    const ttlMs = op.ttlMs === undefined ? (this.#options.defaultTtlMs ?? null) : op.ttlMs;
    // BIGINT milliseconds: a fractional TTL rounds up, so a positive one never becomes zero.
    return ttlMs === null ? null : Math.ceil(ttlMs);
  }
}

function alive(params: PgParams, now: number): string {
  return `(expires_at IS NULL OR expires_at > ${params.add(now, "bigint")})`;
}

/** A data exception (SQLSTATE class 22: NUL in text, "\u0000" in JSONB, out of range) is the caller's input. */
function refusedInput(error: unknown): UserInputError | undefined {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || !code.startsWith("22")) return undefined;
  return new UserInputError("BAD_INPUT", `store: PostgreSQL cannot store or match this input (${String(message)})`, { cause: error });
}

function toItem(row: Row): Item {
  return {
    namespace: row.ns,
    key: row.key,
    value: row.value,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}
