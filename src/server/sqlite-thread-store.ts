/**
 * The HTTP API's threads in the run database's SQLite file (table `server_threads`, module "server"), on the
 * connection the checkpoints use, so a thread's copy and its checkpoints are one commit.
 * @module
 */
import type { Statement } from "better-sqlite3";
import { immediateTransaction, migrate, type ModuleSchema, type SqliteDatabase } from "../db/index.js";
import { threadExistsError, unknownThreadError, type ThreadFilter, type ThreadRow, type ThreadStore } from "./thread-store.js";

const V1 = `
CREATE TABLE server_threads (
  thread_id TEXT PRIMARY KEY,
  metadata_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX server_threads_by_created ON server_threads (created_at);
`;

/** The server module's schema; migration i brings version i to i + 1. */
export const SERVER_SCHEMA: ModuleSchema = { module: "server", tables: ["server_threads"], migrations: [V1] };

interface Row {
  thread_id: string;
  metadata_json: string;
  created_at: number;
  updated_at: number;
}

function fromRow(row: Row): ThreadRow {
  return { threadId: row.thread_id, metadata: JSON.parse(row.metadata_json) as Record<string, unknown>, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** Threads of the HTTP API over one database. */
export class SqliteThreadStore implements ThreadStore {
  private readonly statements = new Map<string, Statement<unknown[]>>();

  /**
   * {@link createNow} as one write transaction: its lock is waited for in short steps (immediateTransaction) rather
   * than by SQLite's busy handler, whose 1, 2, 5 … ms sleeps stalled the server's loop while worker processes wrote.
   */
  private readonly createTx: (threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing") => ThreadRow;

  private constructor(private readonly db: SqliteDatabase) {
    this.createTx = immediateTransaction(db, (threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing") => this.createNow(threadId, metadata, ifExists));
  }

  /** A prepared statement, compiled once per SQL text (every run creates and reads a thread). */
  private stmt(sql: string): Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Migrates the table and returns the store. */
  static open(db: SqliteDatabase): SqliteThreadStore {
    migrate(db, SERVER_SCHEMA);
    return new SqliteThreadStore(db);
  }

  /** Creates a thread; an existing id is returned unchanged when `ifExists` is "do_nothing", else 409. */
  async create(threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing" = "raise"): Promise<ThreadRow> {
    return this.createTx(threadId, metadata, ifExists);
  }

  private createNow(threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing"): ThreadRow {
    const existing = this.findNow(threadId);
    if (existing !== undefined) {
      if (ifExists === "do_nothing") return existing;
      throw threadExistsError(threadId);
    }
    const now = Date.now();
    this.stmt("INSERT INTO server_threads (thread_id, metadata_json, created_at, updated_at) VALUES (?, ?, ?, ?)")
      .run(threadId, JSON.stringify(metadata), now, now);
    return { threadId, metadata, createdAt: now, updatedAt: now };
  }

  async find(threadId: string): Promise<ThreadRow | undefined> {
    return this.findNow(threadId);
  }

  private findNow(threadId: string): ThreadRow | undefined {
    const row = this.stmt("SELECT * FROM server_threads WHERE thread_id = ?").get(threadId) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  async get(threadId: string): Promise<ThreadRow> {
    return this.getNow(threadId);
  }

  private getNow(threadId: string): ThreadRow {
    const thread = this.findNow(threadId);
    if (thread === undefined) throw unknownThreadError(threadId);
    return thread;
  }

  async patch(threadId: string, metadata: Record<string, unknown>): Promise<ThreadRow> {
    const thread = this.getNow(threadId);
    const merged = { ...thread.metadata, ...metadata };
    const now = Date.now();
    this.stmt("UPDATE server_threads SET metadata_json = ?, updated_at = ? WHERE thread_id = ?").run(JSON.stringify(merged), now, threadId);
    return { ...thread, metadata: merged, updatedAt: now };
  }

  async search(filter: ThreadFilter): Promise<ThreadRow[]> {
    const where: string[] = [];
    const args: unknown[] = [];
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      // JSON string escapes in the quoted label: a quote or backslash in the key matches itself.
      const path = `$.${JSON.stringify(key)}`;
      if (typeof value === "boolean") {
        // json_extract gives true as 1: the JSON type tells a boolean from a number, as PostgreSQL's jsonb does.
        where.push("json_type(metadata_json, ?) = ?");
        args.push(path, value ? "true" : "false");
      } else if (typeof value === "number") {
        where.push("json_type(metadata_json, ?) IN ('integer', 'real') AND json_extract(metadata_json, ?) = ?");
        args.push(path, path, value);
      } else {
        where.push("json_extract(metadata_json, ?) IS ?");
        args.push(path, typeof value === "object" && value !== null ? JSON.stringify(value) : value);
      }
    }
    if (filter.ids !== undefined) {
      where.push("thread_id IN (SELECT value FROM json_each(?))");
      args.push(JSON.stringify(filter.ids));
    }
    const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
    const column = filter.sortBy === "thread_id" ? "thread_id" : "created_at";
    const order = filter.sortOrder === "asc" ? "ASC" : "DESC";
    const rows = this.db.prepare(`SELECT * FROM server_threads ${clause} ORDER BY ${column} ${order}, thread_id ${order} LIMIT ? OFFSET ?`)
      .all(...args, filter.limit, filter.offset) as Row[];
    return rows.map(fromRow);
  }

  async delete(threadId: string): Promise<boolean> {
    return this.stmt("DELETE FROM server_threads WHERE thread_id = ?").run(threadId).changes > 0;
  }

  async copy(threadId: string, metadata: Record<string, unknown>, copyState: (threadId: string) => void | Promise<void>): Promise<ThreadRow> {
    return immediateTransaction(this.db, () => {
      const created = this.createNow(threadId, metadata, "raise");
      const copying = copyState(threadId);
      // A promise would settle after the commit: the copy and its state must be one transaction here.
      if (copying instanceof Promise) throw new TypeError("SqliteThreadStore.copy: copyState must copy synchronously, in the thread row's transaction");
      return created;
    })();
  }
}
