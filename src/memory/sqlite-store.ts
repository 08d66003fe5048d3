/**
 * Long-term memory: LangGraph's `BaseStore` on the run database. State is the
 * current run; what a graph puts here outlives it and is read by later threads.
 * @module
 */
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from "@langchain/langgraph-checkpoint";
import { immediateTransaction, migrate, openDatabase, type SqliteDatabase } from "../db/index.js";
import { compileFilter } from "./filter-sql.js";
import { queryTerms, scoreExpression, searchText } from "./lexical-query.js";
import { matchCondition, namespacePath, prefixRange, truncatedNamespace } from "./namespace-sql.js";
import type { MemoryStore, MemoryStoreOptions } from "./memory-store.js";
import { memorySchema } from "./schema.js";
import { validateOperation } from "./validate-operation.js";

/** How a {@link SqliteStore} keeps time and expires items. */
export type SqliteStoreOptions = MemoryStoreOptions;

/** A put that may carry its own time to live (null: never expires). */
export interface SqlitePutOperation extends PutOperation {
  ttlMs?: number | null;
}

interface Row {
  ns: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
  score?: number | null;
}

const ALIVE = "(expires_at IS NULL OR expires_at > ?)";

/**
 * A SQLite `BaseStore`: namespaced put/get/search/delete/listNamespaces with
 * filters evaluated by SQLite's JSON functions, lexical `query` ranking (no
 * embeddings) and optional TTL. Pass it to `graph.compile({ store })`.
 * @example
 * const store = new SqliteStore(db);
 * const graph = builder.compile({ checkpointer, store });
 * // in a node: await config.store?.put(["users", userId, "prefs"], "language", { value: "Chinese" });
 */
export class SqliteStore extends BaseStore implements MemoryStore {
  readonly db: SqliteDatabase;
  readonly #ownsDb: boolean;
  readonly #options: Required<Omit<SqliteStoreOptions, "defaultTtlMs">> & Pick<SqliteStoreOptions, "defaultTtlMs">;

  /** @param db the shared run database, or a file path this store opens (and closes in {@link SqliteStore.close}). */
  constructor(db: SqliteDatabase | string, options: SqliteStoreOptions = {}) {
    super();
    this.#ownsDb = typeof db === "string";
    this.db = typeof db === "string" ? openDatabase(db) : db;
    this.#options = {
      defaultTtlMs: options.defaultTtlMs,
      refreshOnRead: options.refreshOnRead ?? true,
      now: options.now ?? Date.now,
    };
    migrate(this.db, memorySchema);
  }

  /** Runs the operations in one transaction; reads see the state before this batch's writes, as in InMemoryStore. */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    operations.forEach(validateOperation);
    const now = this.#options.now();
    // A read-only connection (inspection tools, historical fixtures) reads without refreshing TTLs.
    const refresh = this.#options.refreshOnRead && !this.db.readonly;
    const work = () => {
      const results: unknown[] = [];
      const puts = new Map<string, SqlitePutOperation>();
      for (const op of operations) {
        if ("value" in op) {
          puts.set(`${namespacePath(op.namespace)}\u0000${op.key}`, op);
          results.push(undefined);
        } else if ("namespacePrefix" in op) results.push(this.#search(op, now, refresh));
        else if ("key" in op) results.push(this.#get(op, now, refresh));
        else results.push(this.#listNamespaces(op, now));
      }
      if (puts.size > 0) this.#sweep(now);
      for (const op of puts.values()) this.#put(op, now);
      return results;
    };
    // IMMEDIATE takes the write lock up front, so a read that refreshes TTLs never fails to upgrade.
    return (this.db.readonly ? this.db.transaction(work).deferred() : immediateTransaction(this.db, work)()) as OperationResults<Op>;
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
    const op: SqlitePutOperation = { namespace, key, value, index, ttlMs: options.ttlMs };
    await this.batch([op]);
  }

  /** Deletes expired items now (they are already invisible to reads); resolves to how many. */
  async sweepExpired(): Promise<number> {
    return this.#sweep(this.#options.now());
  }

  /** Closes the database if this store opened it from a path; a shared connection is left to its owner. */
  close(): void {
    if (this.#ownsDb && this.db.open) this.db.close();
  }

  #get(op: GetOperation, now: number, refresh: boolean): Item | null {
    const path = namespacePath(op.namespace);
    const row = this.db
      .prepare(`SELECT ns, key, value, created_at, updated_at FROM store_items WHERE ns_path = ? AND key = ? AND ${ALIVE}`)
      .get(path, op.key, now) as Row | undefined;
    if (row === undefined) return null;
    if (refresh) this.#refresh([[path, op.key]], now);
    return toItem(row);
  }

  #search(op: SearchOperation, now: number, refresh: boolean): SearchItem[] {
    const range = prefixRange(op.namespacePrefix);
    const filter = compileFilter(op.filter);
    const terms = op.query === undefined ? [] : queryTerms(op.query);
    const score = scoreExpression(terms);
    const rows = this.db
      .prepare(
        `SELECT * FROM (
           SELECT ns, ns_path, key, value, created_at, updated_at, ${score.sql} AS score FROM store_items
           WHERE ${ALIVE} AND ${range.sql} AND ${filter.sql}
         ) ${terms.length > 0 ? "WHERE score > 0" : ""}
         ORDER BY ${terms.length > 0 ? "score DESC," : ""} updated_at DESC, ns_path, key
         LIMIT ? OFFSET ?`,
      )
      .all(...score.params, now, ...range.params, ...filter.params, op.limit ?? 10, op.offset ?? 0) as (Row & { ns_path: string })[];
    if (refresh && rows.length > 0) this.#refresh(rows.map((r) => [r.ns_path, r.key]), now);
    return rows.map((row) => ({ ...toItem(row), score: row.score ?? undefined }));
  }

  #listNamespaces(op: ListNamespacesOperation, now: number): string[][] {
    const conditions = (op.matchConditions ?? []).map(matchCondition);
    const where = [ALIVE, ...conditions.map((c) => c.sql)].join(" AND ");
    const cut = truncatedNamespace("m", op.maxDepth);
    const rows = this.db
      .prepare(
        `WITH m AS (SELECT DISTINCT ns, depth FROM store_items WHERE ${where}),
              t AS (SELECT DISTINCT ${cut.sql} AS ns FROM m)
         SELECT ns FROM t
         ORDER BY replace(substr(ns, 3, length(ns) - 4), '","', '.'), ns
         LIMIT ? OFFSET ?`,
      )
      .all(now, ...conditions.flatMap((c) => c.params), ...cut.params, op.limit, op.offset) as { ns: string }[];
    return rows.map((row) => JSON.parse(row.ns) as string[]);
  }

  #put(op: SqlitePutOperation, now: number): void {
    const path = namespacePath(op.namespace);
    if (op.value === null) {
      this.db.prepare("DELETE FROM store_items WHERE ns_path = ? AND key = ?").run(path, op.key);
      return;
    }
    const ttlMs = op.ttlMs === undefined ? (this.#options.defaultTtlMs ?? null) : op.ttlMs;
    this.db
      .prepare(
        `INSERT INTO store_items (ns_path, key, ns, depth, value, search_text, created_at, updated_at, ttl_ms, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (ns_path, key) DO UPDATE SET
           value = excluded.value, search_text = excluded.search_text, updated_at = excluded.updated_at,
           ttl_ms = excluded.ttl_ms, expires_at = excluded.expires_at,
           created_at = CASE WHEN store_items.expires_at <= excluded.updated_at THEN excluded.created_at ELSE store_items.created_at END`,
      )
      .run(
        path,
        op.key,
        JSON.stringify(op.namespace),
        op.namespace.length,
        JSON.stringify(op.value),
        searchText(op.value, op.index),
        now,
        now,
        ttlMs,
        ttlMs === null ? null : now + ttlMs,
      );
  }

  #refresh(keys: [string, string][], now: number): void {
    const stmt = this.db.prepare(
      "UPDATE store_items SET expires_at = ? + ttl_ms WHERE ns_path = ? AND key = ? AND ttl_ms IS NOT NULL",
    );
    for (const [path, key] of keys) stmt.run(now, path, key);
  }

  #sweep(now: number): number {
    return this.db.prepare("DELETE FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now).changes;
  }
}

function toItem(row: Row): Item {
  return {
    namespace: JSON.parse(row.ns) as string[],
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
