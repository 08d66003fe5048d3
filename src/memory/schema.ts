/**
 * Tables of the memory module: one row per stored item.
 * @module
 */
import type { ModuleSchema } from "../db/index.js";

/**
 * `ns` is the namespace as a JSON array (exact labels); `ns_path` is the labels
 * joined by "." with a trailing "." so a namespace prefix is a string range
 * (labels cannot contain "."); `search_text` is what a `query` matches, NULL
 * when the item was put with `index: false`.
 */
export const memorySchema: ModuleSchema = {
  module: "memory",
  tables: ["store_items"],
  migrations: [
    `CREATE TABLE store_items (
       ns_path TEXT NOT NULL,
       key TEXT NOT NULL,
       ns TEXT NOT NULL,
       depth INTEGER NOT NULL,
       value TEXT NOT NULL,
       search_text TEXT,
       created_at INTEGER NOT NULL,
       updated_at INTEGER NOT NULL,
       ttl_ms INTEGER,
       expires_at INTEGER,
       PRIMARY KEY (ns_path, key)
     ) WITHOUT ROWID;
     CREATE INDEX store_items_expires ON store_items (expires_at) WHERE expires_at IS NOT NULL;
     CREATE INDEX store_items_updated ON store_items (ns_path, updated_at);`,
  ],
};
