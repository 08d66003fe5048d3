/**
 * The database a CLI command acts on, opened from `--db` on either backend and closed when the command is done:
 * a SQLite file, or a pool on a PostgreSQL schema. Like a mistyped file, a schema that does not exist is refused
 * (exit 2) instead of being created; the command then creates or migrates only what it writes.
 * @module
 */
import { openDatabase, parseDatabaseTarget, type OpenDatabaseOptions, type SqliteDatabase } from "../db/index.js";
import { PostgresDatabase, postgresSchemaExists } from "../db/postgres/index.js";
import { StorageError } from "../errors.js";

/** How a read-only command opens a SQLite file: a snapshot of an existing file, nothing created beside it. */
export const READ_SQLITE: OpenDatabaseOptions = { readonly: true, snapshot: true };

/**
 * Runs `work` on the database `value` names (`--db`: a path or a postgres:// URL), closing it afterwards.
 * SQLite files open with `sqlite`; a PostgreSQL schema must exist (DB_OPEN_FAILED otherwise, naming the server,
 * never the password), and an unreachable server or a missing database is its one-line StorageError.
 */
export async function withCommandDatabase<T>(
  value: string,
  sqlite: OpenDatabaseOptions,
  work: (db: SqliteDatabase | PostgresDatabase) => Promise<T>,
): Promise<T> {
  const target = parseDatabaseTarget(value);
  if (target.kind === "sqlite") {
    const db = openDatabase(target.path, sqlite);
    try {
      return await work(db);
    } finally {
      db.close();
    }
  }
  // A command is one process doing one thing at a time: two connections are plenty.
  const db = new PostgresDatabase(target, { maxConnections: 2 });
  try {
    if (!(await postgresSchemaExists(db))) throw new StorageError("DB_OPEN_FAILED", `${db.server}: no schema "${db.schema}" (nothing was stored there yet; check ?schema= in --db)`);
    return await work(db);
  } finally {
    await db.close();
  }
}
