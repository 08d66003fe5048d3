/** PostgreSQL plumbing shared by every module's PostgreSQL implementation. */
export { PostgresDatabase } from "./postgres-database.js";
export type { PgQueryable, PgTransactionClient, PostgresDatabaseOptions } from "./postgres-database.js";
export { migratePostgres, migrateOnce, readPostgresVersion, assertPostgresSchemaCurrent, postgresSchemaExists } from "./migrate-postgres.js";
export type { PgModuleSchema } from "./migrate-postgres.js";
export { postgresFailure, isConnectionFailure } from "./pg-errors.js";
export { PostgresNotifications, notificationChannel } from "./notifications.js";
export type { NotificationListener } from "./notifications.js";
