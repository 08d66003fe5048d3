import { StorageError } from "../errors.js";
import { databaseFile, type SqliteDatabase } from "./open-database.js";

/** One forward step of a module's schema: SQL to exec, or a function for data moves. */
export type Migration = string | ((db: SqliteDatabase) => void);

/** A module's schema: its name, the tables it owns, and its migrations in order. */
export interface ModuleSchema {
  /** Stable module name, e.g. "checkpoints" or "runs". */
  module: string;
  /** Tables this module owns; used to tell a foreign file from a fresh one. */
  tables: readonly string[];
  /** Migration i brings the schema from version i to i + 1. */
  migrations: readonly Migration[];
}

const VERSION_TABLE = "agentrt_schema";

/**
 * Brings one module's tables up to its newest version, in one IMMEDIATE
 * transaction so two processes opening the same file never both migrate.
 * Refuses a file written by a newer agentrt, and a file whose tables of the
 * same name were made by something else.
 */
export function migrate(db: SqliteDatabase, schema: ModuleSchema): number {
  const target = schema.migrations.length;
  const current = readVersion(db, schema.module);
  if (current === target) return current;
  if (db.readonly) {
    throw new StorageError("DB_READ_ONLY", `${databaseFile(db)}: module ${schema.module} needs migration ${current} → ${target} but the file is opened read-only; a writing command (run, worker, serve) with write access migrates it`);
  }
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (module TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
    const version = readVersion(db, schema.module);
    if (version > target) throw tooNew(db, schema, version);
    if (version === 0) assertNoForeignTables(db, schema);
    for (let i = version; i < target; i++) {
      const step = schema.migrations[i];
      if (typeof step === "string") db.exec(step);
      else step?.(db);
    }
    db.prepare(
      `INSERT INTO ${VERSION_TABLE} (module, version, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(module) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
    ).run(schema.module, target, Date.now());
  });
  run.immediate();
  return target;
}

/** The schema version a module has in this file (0 when it has never been created). */
export function readVersion(db: SqliteDatabase, module: string): number {
  const table = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(VERSION_TABLE);
  if (table === undefined) return 0;
  const row = db.prepare(`SELECT version FROM ${VERSION_TABLE} WHERE module = ?`).get(module) as
    | { version: number }
    | undefined;
  return row?.version ?? 0;
}

/** Throws unless the module's tables are exactly at the version this code knows. */
export function assertSchemaCurrent(db: SqliteDatabase, schema: ModuleSchema): void {
  const version = readVersion(db, schema.module);
  if (version > schema.migrations.length) throw tooNew(db, schema, version);
}

function tooNew(db: SqliteDatabase, schema: ModuleSchema, version: number): StorageError {
  return new StorageError(
    "DB_SCHEMA_TOO_NEW",
    `${databaseFile(db)}: module ${schema.module} is at schema version ${version}, newer than this agentrt knows (${schema.migrations.length})`,
    { details: { module: schema.module, version, known: schema.migrations.length } },
  );
}

function assertNoForeignTables(db: SqliteDatabase, schema: ModuleSchema): void {
  for (const table of schema.tables) {
    const found = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (found !== undefined) {
      throw new StorageError(
        "DB_CORRUPT",
        `${databaseFile(db)}: table ${table} exists but was not created by agentrt's ${schema.module} module (a foreign database?)`,
        { details: { module: schema.module, table } },
      );
    }
  }
}
