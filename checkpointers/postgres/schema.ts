import type { PgModuleSchema } from "../../src/db/postgres/index.js";

/**
 * The checkpoint tables on PostgreSQL, owned by the "checkpoints" module (the SQLite schema's name and tables).
 *
 * - `checkpoints`: one row per checkpoint; `checkpoint` is the JSONB skeleton (id, ts, channel_versions,
 *   versions_seen) without channel values. `metadata` is JSONB when the serde wrote JSON PostgreSQL can hold,
 *   so `list()` filters run in SQL; anything else (another serde, a `\u0000` in a string) is in `metadata_bytes`.
 * - `checkpoint_blobs`: one row per (channel, version); a checkpoint finds its values through its
 *   `channel_versions`, so an unchanged channel is stored once. `version` is the version as text
 *   (`channel_versions ->> channel`, which is how a read finds it).
 * - `checkpoint_writes`: pending writes; `idx < 0` are the special channels (errors, interrupts), which replace.
 *
 * Keys and ordering columns are `COLLATE "C"`: byte order is code point order (what SQLite's BINARY gives
 * and LangGraph's `writesSortKey` expects), whatever the database's collation, and compares fastest.
 */
export const PG_CHECKPOINT_SCHEMA: PgModuleSchema = {
  module: "checkpoints",
  tables: ["checkpoints", "checkpoint_blobs", "checkpoint_writes"],
  migrations: [
    `CREATE TABLE checkpoints (
       thread_id TEXT COLLATE "C" NOT NULL,
       checkpoint_ns TEXT COLLATE "C" NOT NULL DEFAULT '',
       checkpoint_id TEXT COLLATE "C" NOT NULL,
       parent_checkpoint_id TEXT COLLATE "C",
       checkpoint JSONB NOT NULL,
       metadata_type TEXT NOT NULL,
       metadata JSONB,
       metadata_bytes BYTEA,
       PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
     );
     CREATE TABLE checkpoint_blobs (
       thread_id TEXT COLLATE "C" NOT NULL,
       checkpoint_ns TEXT COLLATE "C" NOT NULL DEFAULT '',
       channel TEXT COLLATE "C" NOT NULL,
       version TEXT COLLATE "C" NOT NULL,
       type TEXT NOT NULL,
       value BYTEA,
       PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
     );
     CREATE TABLE checkpoint_writes (
       thread_id TEXT COLLATE "C" NOT NULL,
       checkpoint_ns TEXT COLLATE "C" NOT NULL DEFAULT '',
       checkpoint_id TEXT COLLATE "C" NOT NULL,
       task_id TEXT COLLATE "C" NOT NULL,
       idx INTEGER NOT NULL,
       channel TEXT NOT NULL,
       type TEXT NOT NULL,
       value BYTEA,
       task_path TEXT COLLATE "C" NOT NULL DEFAULT '',
       PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
     );`,
  ],
};
