/**
 * Threads as the Agent Server API knows them: an id, metadata and times,
 * kept in SQLite next to runs and checkpoints so a thread created without
 * any run still exists after a restart. Values come from the checkpoints.
 * @module
 */
import type { Statement } from "better-sqlite3";
import { immediateTransaction, migrate, type ModuleSchema, type SqliteDatabase } from "../db/index.js";
import { HttpError } from "./http-error.js";

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

/** What {@link SqliteThreadStore.search} selects and how it orders them. */
export interface ThreadFilter {
  metadata?: Record<string, unknown>;
  ids?: string[];
  sortBy?: "thread_id" | "created_at";
  sortOrder?: "asc" | "desc";
  limit: number;
  offset: number;
}

/** A stored thread. */
export interface ThreadRow {
  threadId: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
}

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
export class SqliteThreadStore {
  private readonly statements = new Map<string, Statement<unknown[]>>();

  private constructor(private readonly db: SqliteDatabase) {}

  /** A prepared statement, compiled once per SQL text (every run creates and reads a thread). */
  private stmt(sql: string): Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` in one BEGIN IMMEDIATE transaction of the store's connection (the checkpoints' too). */
  transaction<T>(fn: () => T): T {
    return immediateTransaction(this.db, fn)();
  }

  /** Migrates the table and returns the store. */
  static open(db: SqliteDatabase): SqliteThreadStore {
    migrate(db, SERVER_SCHEMA);
    return new SqliteThreadStore(db);
  }

  /** Creates a thread; an existing id is returned unchanged when `ifExists` is "do_nothing", else 409. */
  create(threadId: string, metadata: Record<string, unknown>, ifExists: "raise" | "do_nothing" = "raise"): ThreadRow {
    const existing = this.find(threadId);
    if (existing !== undefined) {
      if (ifExists === "do_nothing") return existing;
      throw new HttpError(409, "THREAD_EXISTS", `thread ${threadId} already exists (if_exists: "do_nothing" returns it)`);
    }
    const now = Date.now();
    this.stmt("INSERT INTO server_threads (thread_id, metadata_json, created_at, updated_at) VALUES (?, ?, ?, ?)")
      .run(threadId, JSON.stringify(metadata), now, now);
    return { threadId, metadata, createdAt: now, updatedAt: now };
  }

  /** The thread or undefined. */
  find(threadId: string): ThreadRow | undefined {
    const row = this.stmt("SELECT * FROM server_threads WHERE thread_id = ?").get(threadId) as Row | undefined;
    return row === undefined ? undefined : fromRow(row);
  }

  /** The thread or a 404. */
  get(threadId: string): ThreadRow {
    const thread = this.find(threadId);
    if (thread === undefined) throw new HttpError(404, "UNKNOWN_THREAD", `no thread with id ${threadId}`);
    return thread;
  }

  /** Merges metadata keys into the thread's metadata and touches it. */
  patch(threadId: string, metadata: Record<string, unknown>): ThreadRow {
    const thread = this.get(threadId);
    const merged = { ...thread.metadata, ...metadata };
    const now = Date.now();
    this.stmt("UPDATE server_threads SET metadata_json = ?, updated_at = ? WHERE thread_id = ?").run(JSON.stringify(merged), now, threadId);
    return { ...thread, metadata: merged, updatedAt: now };
  }

  /**
   * Threads whose metadata contains every given key with an equal (JSON) value, and whose id is one of `ids`
   * when given; newest created first unless `sortBy`/`sortOrder` say otherwise.
   */
  search(filter: ThreadFilter): ThreadRow[] {
    const where: string[] = [];
    const args: unknown[] = [];
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      where.push("json_extract(metadata_json, ?) IS ?");
      // JSON string escapes in the quoted label: a quote or backslash in the key matches itself.
      args.push(`$.${JSON.stringify(key)}`, typeof value === "object" && value !== null ? JSON.stringify(value) : (value));
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

  /** Removes the thread row; true when it existed. */
  delete(threadId: string): boolean {
    return this.stmt("DELETE FROM server_threads WHERE thread_id = ?").run(threadId).changes > 0;
  }
}
