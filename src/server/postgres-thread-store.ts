/**
 * The HTTP API's threads in a PostgreSQL schema (table `server_threads`, module "server"). Metadata is JSONB:
 * a search's metadata filter is a containment the GIN index answers, refined by exact equality per key.
 * @module
 */
import { migratePostgres, type PgModuleSchema, type PostgresDatabase } from "../db/postgres/index.js";
import { threadExistsError, unknownThreadError, type ThreadFilter, type ThreadRow, type ThreadStore } from "./thread-store.js";

/** The server module's PostgreSQL schema; migration i brings version i to i + 1. */
export const PG_SERVER_SCHEMA: PgModuleSchema = Object.freeze({
  module: "server",
  tables: Object.freeze(["server_threads"]),
  migrations: Object.freeze([
    `CREATE TABLE server_threads (
       thread_id TEXT PRIMARY KEY,
       metadata JSONB NOT NULL DEFAULT '{}',
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL
     );
     CREATE INDEX server_threads_by_created ON server_threads (created_at);
     CREATE INDEX server_threads_by_metadata ON server_threads USING GIN (metadata jsonb_path_ops);`,
  ]),
});

const COLUMNS = "thread_id, metadata, created_at, updated_at";

// Inserted, or the existing row when the statement's snapshot sees it (a racing insert it waited for it does not).
const CREATE = `
WITH inserted AS (
  INSERT INTO server_threads (${COLUMNS}) VALUES ($1, $2::jsonb, $3, $3)
  ON CONFLICT (thread_id) DO NOTHING RETURNING ${COLUMNS}, true AS created
)
SELECT * FROM inserted
UNION ALL
SELECT ${COLUMNS}, false AS created FROM server_threads WHERE thread_id = $1 AND NOT EXISTS (SELECT 1 FROM inserted)`;

interface Row {
  thread_id: string;
  metadata: Record<string, unknown>;
  created_at: string | number;
  updated_at: string | number;
}

function fromRow(row: Row): ThreadRow {
  // BIGINT arrives as a string: epoch milliseconds fit a double exactly.
  return { threadId: row.thread_id, metadata: row.metadata, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at) };
}

/** {@link ThreadStore} on a PostgreSQL schema. */
export class PostgresThreadStore implements ThreadStore {
  private constructor(private readonly db: PostgresDatabase) {}

  /** Migrates the table and returns the store. */
  static async open(db: PostgresDatabase): Promise<PostgresThreadStore> {
    await migratePostgres(db, PG_SERVER_SCHEMA);
    return new PostgresThreadStore(db);
  }

  async create(threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing" = "raise"): Promise<ThreadRow> {
    const result = await this.db.query<Row & { created: boolean }>(CREATE, [threadId, JSON.stringify(metadata), Date.now()]);
    const row = result.rows[0];
    if (row?.created === true) return fromRow(row);
    if (ifExists === "raise") throw threadExistsError(threadId);
    if (row !== undefined) return fromRow(row);
    // Another transaction's insert committed while this statement waited on it: read it now.
    const found = await this.find(threadId);
    return found ?? this.create(threadId, metadata, ifExists);
  }

  async find(threadId: string): Promise<ThreadRow | undefined> {
    const result = await this.db.query<Row>(`SELECT ${COLUMNS} FROM server_threads WHERE thread_id = $1`, [threadId]);
    const row = result.rows[0];
    return row === undefined ? undefined : fromRow(row);
  }

  async get(threadId: string): Promise<ThreadRow> {
    const thread = await this.find(threadId);
    if (thread === undefined) throw unknownThreadError(threadId);
    return thread;
  }

  async patch(threadId: string, metadata: Record<string, unknown>): Promise<ThreadRow> {
    const result = await this.db.query<Row>(
      `UPDATE server_threads SET metadata = metadata || $2::jsonb, updated_at = $3 WHERE thread_id = $1 RETURNING ${COLUMNS}`,
      [threadId, JSON.stringify(metadata), Date.now()],
    );
    const row = result.rows[0];
    if (row === undefined) throw unknownThreadError(threadId);
    return fromRow(row);
  }

  async search(filter: ThreadFilter): Promise<ThreadRow[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (value: unknown) => `$${args.push(value)}`;
    const contained: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      // As SQLite's json_extract(…) IS NULL: a null value matches a missing key too.
      if (value === null) where.push(`coalesce(metadata -> ${arg(key)}, 'null'::jsonb) = 'null'::jsonb`);
      else {
        contained[key] = value;
        where.push(`metadata -> ${arg(key)} = ${arg(JSON.stringify(value))}::jsonb`);
      }
    }
    if (Object.keys(contained).length > 0) where.push(`metadata @> ${arg(JSON.stringify(contained))}::jsonb`);
    if (filter.ids !== undefined) where.push(`thread_id = ANY(${arg(filter.ids)}::text[])`);
    const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
    const order = filter.sortOrder === "asc" ? "ASC" : "DESC";
    // Ids in byte order, as SQLite compares them.
    const column = filter.sortBy === "thread_id" ? `thread_id COLLATE "C" ${order}` : `created_at ${order}, thread_id COLLATE "C" ${order}`;
    const limit = filter.limit < 0 ? null : filter.limit;
    const result = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM server_threads ${clause} ORDER BY ${column} LIMIT ${arg(limit)} OFFSET ${arg(filter.offset)}`,
      args,
    );
    return result.rows.map(fromRow);
  }

  async delete(threadId: string): Promise<boolean> {
    const result = await this.db.query("DELETE FROM server_threads WHERE thread_id = $1", [threadId]);
    return (result.rowCount ?? 0) > 0;
  }

  async copy(threadId: string, metadata: Record<string, unknown>, copyState: (threadId: string) => void | Promise<void>): Promise<ThreadRow> {
    // The checkpoints live in another module: copied first, so a crash between leaves only unreachable checkpoints.
    await copyState(threadId);
    return this.create(threadId, metadata, "raise");
  }
}
