/**
 * The server's thread store on the runtime's own database: SQLite beside the runs in one file (one writer lock),
 * or PostgreSQL in the runtime's schema.
 * @module
 */
import { isSqliteDatabase, type RunDatabase } from "../db/index.js";
import { PostgresThreadStore } from "./postgres-thread-store.js";
import { SqliteThreadStore } from "./sqlite-thread-store.js";
import type { ThreadStore } from "./thread-store.js";

/** Opens (creating or migrating) the thread table on `db`. */
export async function openThreadStore(db: RunDatabase): Promise<ThreadStore> {
  return isSqliteDatabase(db) ? SqliteThreadStore.open(db) : PostgresThreadStore.open(db);
}
