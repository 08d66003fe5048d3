import type { ModuleSchema } from "../../src/db/index.js";

/**
 * The checkpoint tables, owned by the "checkpoints" module.
 *
 * - `checkpoints`: one row per checkpoint; `checkpoint` is the JSON skeleton
 *   (id, ts, channel_versions, versions_seen) without channel values, and
 *   `metadata` is JSON text so `list()` filters run in SQL.
 * - `checkpoint_blobs`: one row per (channel, version); a checkpoint finds its
 *   values through its `channel_versions`, so an unchanged channel is shared,
 *   never rewritten. The key leads with the version: a step gives all the
 *   channels it changes one version, so a put touches one index page, not one
 *   per channel (every page touched is a WAL frame written).
 *
 * `version` has no declared type on purpose: it keeps the number or string
 * LangGraph gave, so it compares equal to `json_each`/`json_extract` output
 * without a CAST (a CAST there stops SQLite from probing the key).
 *
 * No secondary indexes: each would be one more page written per put.
 * - `checkpoint_writes`: pending writes, ordered like live execution applies
 *   them: (task_path, task_id, idx), BINARY collation = code point order.
 */
export const CHECKPOINT_SCHEMA: ModuleSchema = {
  module: "checkpoints",
  tables: ["checkpoints", "checkpoint_blobs", "checkpoint_writes"],
  migrations: [
    `CREATE TABLE checkpoints (
       thread_id TEXT NOT NULL,
       checkpoint_ns TEXT NOT NULL DEFAULT '',
       checkpoint_id TEXT NOT NULL,
       parent_checkpoint_id TEXT,
       checkpoint TEXT NOT NULL,
       metadata_type TEXT NOT NULL,
       metadata BLOB NOT NULL,
       PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
     );
     CREATE TABLE checkpoint_blobs (
       thread_id TEXT NOT NULL,
       checkpoint_ns TEXT NOT NULL DEFAULT '',
       channel TEXT NOT NULL,
       version NOT NULL,
       type TEXT NOT NULL,
       value BLOB,
       PRIMARY KEY (thread_id, checkpoint_ns, version, channel)
     );
     CREATE TABLE checkpoint_writes (
       thread_id TEXT NOT NULL,
       checkpoint_ns TEXT NOT NULL DEFAULT '',
       checkpoint_id TEXT NOT NULL,
       task_id TEXT NOT NULL,
       idx INTEGER NOT NULL,
       channel TEXT NOT NULL,
       type TEXT NOT NULL,
       value BLOB,
       task_path TEXT NOT NULL DEFAULT '',
       PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
     );`,
  ],
};
