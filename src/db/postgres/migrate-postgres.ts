/**
 * Versioned migrations of one module's tables in a PostgreSQL schema, as `migrate` does for a SQLite file: the
 * version is recorded in `agentrt_schema` in the same transaction as the migration, under an advisory lock so
 * two processes opening a fresh schema never both migrate; a newer version is DB_SCHEMA_TOO_NEW.
 * @module
 */
import { StorageError } from "../../errors.js";
import type { PgQueryable, PostgresDatabase } from "./postgres-database.js";

/** A module's PostgreSQL schema: its name, the tables it owns, and its migrations (SQL) in order. */
export interface PgModuleSchema {
  /** The same module name as its SQLite schema, e.g. "checkpoints". */
  module: string;
  /** Tables this module owns; one present without a version row means a foreign schema. */
  tables: readonly string[];
  /** Migration i brings the module from version i to i + 1; frozen once released. */
  migrations: readonly string[];
}

const VERSION_TABLE = "agentrt_schema";

/** Brings one module's tables in `db`'s schema to its newest version; returns that version. */
export async function migratePostgres(db: PostgresDatabase, schema: PgModuleSchema): Promise<number> {
  await db.ready();
  const target = schema.migrations.length;
  // The common case (already current) costs one round trip and no lock.
  const seen = await readPostgresVersion(db, schema.module);
  if (seen === target) return target;
  if (seen > target) throw tooNew(db, schema, seen);
  return db.transaction(async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`agentrt_schema:${db.schema}`]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (module TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at BIGINT NOT NULL)`);
    const version = await versionIn(client, schema.module);
    if (version > target) throw tooNew(db, schema, version);
    if (version === 0) await assertNoForeignTables(client, db, schema);
    for (let i = version; i < target; i++) await client.query(schema.migrations[i] ?? "");
    await client.query(
      `INSERT INTO ${VERSION_TABLE} (module, version, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (module) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
      [schema.module, target, Date.now()],
    );
    return target;
  });
}

/** The version a module has in `db`'s schema (0 when never created). */
export async function readPostgresVersion(db: PostgresDatabase, module: string): Promise<number> {
  const exists = await db.query("SELECT to_regclass($1) IS NOT NULL AS present", [`${db.schema}.${VERSION_TABLE}`]);
  if (exists.rows[0]?.present !== true) return 0;
  return versionIn(db, module);
}

/**
 * For a reader that must not write: the version a module has in `db`'s schema (0 when never created), refusing one
 * newer than `schema` knows with DB_SCHEMA_TOO_NEW, as `assertSchemaCurrent` does on SQLite. Creates nothing.
 */
export async function assertPostgresSchemaCurrent(db: PostgresDatabase, schema: PgModuleSchema): Promise<number> {
  const version = await readPostgresVersion(db, schema.module);
  if (version > schema.migrations.length) throw tooNew(db, schema, version);
  return version;
}

/** Whether `db`'s schema exists, asked without creating it (as {@link PostgresDatabase.ready} would). */
export async function postgresSchemaExists(db: PostgresDatabase): Promise<boolean> {
  const result = await db.query<{ present: boolean }>("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS present", [db.schema]);
  return result.rows[0]?.present === true;
}

async function versionIn(queryable: PgQueryable, module: string): Promise<number> {
  const result = await queryable.query<{ version: number }>(`SELECT version FROM ${VERSION_TABLE} WHERE module = $1`, [module]);
  return result.rows[0]?.version ?? 0;
}

function tooNew(db: PostgresDatabase, schema: PgModuleSchema, version: number): StorageError {
  return new StorageError(
    "DB_SCHEMA_TOO_NEW",
    `${db.server} schema ${db.schema}: module ${schema.module} is at schema version ${version}, newer than this agentrt knows (${schema.migrations.length})`,
    { details: { module: schema.module, version, known: schema.migrations.length } },
  );
}

async function assertNoForeignTables(client: PgQueryable, db: PostgresDatabase, schema: PgModuleSchema): Promise<void> {
  const found = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name = ANY($2::text[])",
    [db.schema, [...schema.tables]],
  );
  const table = found.rows[0]?.table_name;
  if (table !== undefined) {
    throw new StorageError(
      "DB_CORRUPT",
      `${db.server} schema ${db.schema}: table ${table} exists but was not created by agentrt's ${schema.module} module (a foreign schema?)`,
      { details: { module: schema.module, table } },
    );
  }
}

/**
 * A function that runs `migratePostgres(db, schema)` the first time it is called and answers later calls with that
 * result; a failed migration is tried again by the next call. Each PostgreSQL store awaits it before its statements.
 */
export function migrateOnce(db: PostgresDatabase, schema: PgModuleSchema): () => Promise<void> {
  let migrated: Promise<void> | undefined;
  return () => (migrated ??= migratePostgres(db, schema).then(
    () => undefined,
    (error: unknown) => {
      migrated = undefined;
      throw error;
    },
  ));
}
