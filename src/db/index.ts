/** Storage plumbing shared by every module that keeps tables in the run database. */
export { openDatabase, databaseFile, MEMORY_PATH } from "./open-database.js";
export type { SqliteDatabase, OpenDatabaseOptions } from "./open-database.js";
export { immediateTransaction } from "./immediate-transaction.js";
export { migrate, readVersion, assertSchemaCurrent } from "./migrate.js";
export type { Migration, ModuleSchema } from "./migrate.js";
export { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-depth.js";
export { unstorableInJson, unstorableInText } from "./storable-text.js";
export { storageFailure, isStorageFailureCode } from "./storage-failure.js";
export type { StorageFailureCode } from "./storage-failure.js";
export { connectionFailure, isConnectionFailureCode } from "./connection-failure.js";
export type { ConnectionFailureCode } from "./connection-failure.js";
export { parseDatabaseTarget, isPostgresUrl, displayDatabase, DEFAULT_SQLITE_PATH } from "./database-target.js";
export type { DatabaseTarget, SqliteTarget, PostgresTarget } from "./database-target.js";
export type { StoreTransaction } from "./store-transaction.js";
export { isSqliteDatabase } from "./run-database.js";
export type { RunDatabase } from "./run-database.js";
