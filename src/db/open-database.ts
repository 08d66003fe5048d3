import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { StorageError } from "../errors.js";
import { trackBusyTimeout } from "./busy-timeout.js";
import { isPostgresUrl, parseDatabaseTarget } from "./database-target.js";
import { readSnapshot } from "./read-snapshot.js";
import { storageFailure } from "./storage-failure.js";

/** A better-sqlite3 connection, as every agentrt module receives it. */
export type SqliteDatabase = Database.Database;

/** How to open a database file. */
export interface OpenDatabaseOptions {
  /** Open without write access; migrations are then refused. @default false */
  readonly?: boolean;
  /** How long a writer waits for another process's lock before failing. @default 5000 */
  busyTimeoutMs?: number;
  /** Fail instead of creating a missing file (commands that only act on existing runs). @default false (implied by readonly) */
  mustExist?: boolean;
  /**
   * With `readonly`, for one-shot reads (CLI commands): create nothing beside the file, so a read-only directory
   * works too — when no -wal exists the file is read into memory (see read-snapshot.ts) and later writes by others
   * are not seen. Not for long-lived readers. @default false
   */
  snapshot?: boolean;
}

/** The files that connections opened on an in-memory snapshot stand for. */
const snapshotOf = new WeakMap<SqliteDatabase, string>();

/** The file a connection reads, for messages: its path, also when it reads an in-memory snapshot of it. */
export function databaseFile(db: SqliteDatabase): string {
  return snapshotOf.get(db) ?? db.name;
}

/** The path better-sqlite3 treats as a private in-memory database. */
export const MEMORY_PATH = ":memory:";

/**
 * Opens (or creates) a SQLite file with the pragmas every module relies on:
 * WAL so readers never block the writer, and a busy timeout so several
 * processes can share one file. Fails with a {@link StorageError} that names
 * the file instead of returning a half-usable connection.
 */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (isPostgresUrl(path)) {
    // Never a file named "postgres:": a caller that meant the server needs the runtime or PostgresDatabase.
    const target = parseDatabaseTarget(path);
    const server = target.kind === "postgres" ? target.server : path;
    throw new StorageError("DB_OPEN_FAILED", `${server}: openDatabase opens SQLite files; open a PostgreSQL URL with Runtime.open or PostgresDatabase`);
  }
  const readonly = options.readonly ?? false;
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const mustExist = readonly || options.mustExist === true;
  const isMemory = path === MEMORY_PATH || path === "";
  const shown = isMemory ? MEMORY_PATH : resolve(path);
  if (!isMemory) checkPath(shown, mustExist);

  let db: SqliteDatabase;
  try {
    const snapshot = readonly && options.snapshot === true && !isMemory ? readSnapshot(shown) : undefined;
    if (snapshot !== undefined) {
      db = new Database(snapshot, { readonly: true });
      snapshotOf.set(db, shown);
    } else {
      // fileMustExist also closes the gap between checkPath and the open.
      db = new Database(isMemory ? MEMORY_PATH : shown, { readonly, fileMustExist: mustExist && !isMemory });
    }
  } catch (error) {
    throw wrapOpenError(shown, error, readonly);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // Touch the header first: a foreign or corrupt file fails here, not later mid-run.
    db.pragma("schema_version");
    if (!readonly && !isMemory) {
      const mode = db.pragma("journal_mode = WAL", { simple: true });
      if (String(mode).toLowerCase() !== "wal") {
        throw new StorageError("DB_OPEN_FAILED", `${shown}: could not switch to WAL mode (got ${String(mode)})`);
      }
    }
    // NORMAL is durable against process crashes under WAL; only power loss can drop the last commit.
    if (!readonly) db.pragma("synchronous = NORMAL");
    trackBusyTimeout(db);
  } catch (error) {
    db.close();
    throw wrapOpenError(shown, error, readonly);
  }
  return db;
}

function checkPath(file: string, mustExist: boolean): void {
  const dir = dirname(file);
  if (!existsSync(dir)) {
    throw new StorageError("DB_OPEN_FAILED", `${file}: directory ${dir} does not exist`);
  }
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new StorageError("DB_OPEN_FAILED", `${file}: is a directory, not a database file`);
  }
  if (mustExist && !existsSync(file)) {
    throw new StorageError("DB_OPEN_FAILED", `no database at ${file}`);
  }
}

function wrapOpenError(file: string, error: unknown, readonly: boolean): StorageError {
  if (error instanceof StorageError) return error;
  const storage = storageFailure(error);
  if (storage !== undefined) return new StorageError(storage.code, `${file}: ${storage.message}`, { cause: error });
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") {
    return new StorageError("DB_CORRUPT", `${file}: not a SQLite database or corrupt (${message})`, { cause: error });
  }
  if (readonly && code === "SQLITE_CANTOPEN" && existsSync(`${file}-wal`)) {
    return new StorageError("DB_READ_ONLY", `${file}: cannot read it here: its write-ahead log ${file}-wal needs a -shm index this directory does not allow creating; open it once with write access`, { cause: error });
  }
  if (code === "SQLITE_READONLY" || code === "SQLITE_CANTOPEN" || code === "SQLITE_PERM") {
    return new StorageError("DB_READ_ONLY", `${file}: cannot open for writing (${message})`, { cause: error });
  }
  return new StorageError("DB_OPEN_FAILED", `${file}: ${message}`, { cause: error });
}
