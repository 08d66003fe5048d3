/**
 * The run database as agentrt hands it to tools (`ctx.db`) and to the simulated world: a SQLite connection or a
 * PostgreSQL schema's pool, whichever the runtime was opened on.
 * @module
 */
import type { SqliteDatabase } from "./open-database.js";
import type { PostgresDatabase } from "./postgres/index.js";

/** A SQLite connection (`prepare`, `exec`, synchronous) or a {@link PostgresDatabase} (`query`, `transaction`). */
export type RunDatabase = SqliteDatabase | PostgresDatabase;

/** True for a SQLite connection (as opposed to a PostgreSQL pool, or a stand-in a foreign host passes). */
export function isSqliteDatabase(db: unknown): db is SqliteDatabase {
  return typeof (db as { prepare?: unknown } | undefined)?.prepare === "function";
}
