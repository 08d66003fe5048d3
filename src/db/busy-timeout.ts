/**
 * The busy timeout of a connection, known without asking SQLite before every write transaction: reading it with
 * `db.pragma` costs ~8–20 µs (a statement object per call), and `immediateTransaction` needs it around every
 * BEGIN IMMEDIATE. Connections `openDatabase` opened are tracked: their timeout is read once and read again only
 * after their owner set it (`db.pragma` or `db.exec` mentioning busy_timeout); any other connection is asked
 * every time, as before.
 * @module
 */
import Database from "better-sqlite3";
import type { SqliteDatabase } from "./open-database.js";

const tracked = new WeakSet<SqliteDatabase>();
const known = new WeakMap<SqliteDatabase, number>();
const mentionsTimeout = (source: unknown) => typeof source === "string" && /busy_timeout/i.test(source);

/** Internal (openDatabase): watch `db`'s own pragma and exec so a timeout its owner sets is seen. */
export function trackBusyTimeout(db: SqliteDatabase): void {
  if (tracked.has(db)) return;
  tracked.add(db);
  // Own properties shadowing the prototype's methods, on this connection only.
  db.pragma = (source: string, options?: Database.PragmaOptions): unknown => {
    if (mentionsTimeout(source)) known.delete(db);
    return Database.prototype.pragma.call(db, source, options);
  };
  db.exec = (source: string): SqliteDatabase => {
    if (mentionsTimeout(source)) known.delete(db);
    return Database.prototype.exec.call(db, source);
  };
}

/** The connection's busy timeout in ms as its owner set it. */
export function busyTimeoutOf(db: SqliteDatabase): number {
  const cached = known.get(db);
  if (cached !== undefined) return cached;
  const ms = Math.max(0, Math.floor(Number(Database.prototype.pragma.call(db, "busy_timeout", { simple: true })) || 0));
  if (tracked.has(db)) known.set(db, ms);
  return ms;
}

/** Sets the connection's busy timeout for a moment without changing what {@link busyTimeoutOf} reports. */
export function setBusyTimeoutQuietly(db: SqliteDatabase, ms: number): void {
  // exec, not a prepared statement: SQLite applies `PRAGMA busy_timeout = N` when the statement is prepared,
  // so re-running a prepared one does not set it again.
  Database.prototype.exec.call(db, `PRAGMA busy_timeout = ${ms}`);
}
