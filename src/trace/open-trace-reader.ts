/**
 * The trace store a read-only command uses, whichever backend its database is: spans and statistics are read
 * back, nothing is created or migrated, and a database no run was traced in reads as empty on both.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";
import { PostgresDatabase } from "../db/postgres/index.js";
import { openPostgresTraceReader } from "./postgres-store.js";
import { openTraceStore } from "./sqlite-store.js";
import type { TraceStore, TraceStoreOptions } from "./trace-store.js";

/**
 * The trace store of an open database, for reading: a read-only SQLite connection is checked, never migrated
 * (a writable one is migrated, as {@link openTraceStore} does); a PostgreSQL schema is only checked.
 * @example
 * const spans = await (await openTraceReader(db)).spans("run_01");
 */
export async function openTraceReader(db: SqliteDatabase | PostgresDatabase, options: TraceStoreOptions = {}): Promise<TraceStore> {
  return db instanceof PostgresDatabase ? openPostgresTraceReader(db, options) : openTraceStore(db, options);
}
