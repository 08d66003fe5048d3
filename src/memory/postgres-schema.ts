/**
 * The memory module's tables on PostgreSQL: the same rows as on SQLite (schema.ts), with the value as JSONB so
 * filters are JSONB operators, and the namespace as a text array so prefix/suffix labels are subscripts.
 * @module
 */
import type { PgModuleSchema } from "../db/postgres/index.js";

/**
 * `ns_path` is the labels joined by "." with a trailing "." so a namespace prefix is a string range; it and `key`
 * use the "C" collation so ranges and ordering are by code point, as on SQLite, whatever the database's
 * collation. Times are epoch milliseconds; `search_text` is NULL for an item put with `index: false`.
 */
export const memoryPgSchema: PgModuleSchema = {
  module: "memory",
  tables: ["store_items"],
  migrations: [
    `CREATE TABLE store_items (
       ns_path TEXT COLLATE "C" NOT NULL,
       key TEXT COLLATE "C" NOT NULL,
       ns TEXT[] COLLATE "C" NOT NULL,
       value JSONB NOT NULL,
       search_text TEXT,
       created_at BIGINT NOT NULL,
       updated_at BIGINT NOT NULL,
       ttl_ms BIGINT,
       expires_at BIGINT,
       PRIMARY KEY (ns_path, key)
     );
     CREATE INDEX store_items_expires ON store_items (expires_at) WHERE expires_at IS NOT NULL;
     CREATE INDEX store_items_updated ON store_items (ns_path, updated_at);`,
  ],
};
