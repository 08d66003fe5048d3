import type { ModuleSchema } from "../../src/db/index.js";

/**
 * The checkpoint tables, owned by the "checkpoints" module.
 *
 * - `checkpoints`: one row per checkpoint; `checkpoint` is the JSON skeleton
 *   (id, ts, channel_versions, versions_seen) without channel values, and
 *   `metadata` is JSON text so `list()` filters run in SQL. `refs` (schema v2)
 *   maps each channel to `[value row id or null, version]` (value-refs.ts): a
 *   put copies its parent's refs for the channels it did not change, so an
 *   unchanged value is shared, never rewritten, and found by rowid.
 *   `vals` (schema v3) is a JSON array of the small values the checkpoint
 *   changed (plain JSON of at most 2,048 characters, 3,072 for the row), kept
 *   in the row itself: a put then writes no value row, one table leaf less per
 *   commit (WAL pages per put 3.87 → 2.9, the official saver's). Their refs are
 *   `[holder checkpoint id ("" for the row itself), version, index in vals]`;
 *   a later checkpoint that did not change the channel names the holder, and
 *   prune moves values still named out of a holder before it goes.
 * - `checkpoint_blobs`: one row per stored (channel, version) too large or not
 *   plain JSON (deflated, or the serde's own bytes), keyed by its
 *   rowid alone. Rows are appended in rowid order, so a put writes the table's
 *   last page and no index: every page a put touches is a WAL frame written,
 *   and a key index on (thread, version, channel) cost one more leaf page per
 *   put (1.3 frames of 5.4), scattered by thread when puts come together.
 *   `thread_id`/`checkpoint_ns`/`channel`/`version` stay for copies and checks.
 * - `checkpoint_writes`: pending writes, ordered like live execution applies
 *   them: (task_path, task_id, idx), BINARY collation = code point order.
 *
 * `version` has no declared type on purpose: it keeps the number or string
 * LangGraph gave, so it compares equal to `json_each`/`json_extract` output
 * without a CAST.
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
    // v2: values by rowid, found through each checkpoint's refs (see above). The key index goes; a temporary
    // one makes the refs of existing checkpoints one probe per channel. Values no checkpoint references (v1 could
    // leave some) are dropped: nothing could reach or delete them any more.
    `ALTER TABLE checkpoints ADD COLUMN refs TEXT;
     CREATE TABLE checkpoint_values (
       id INTEGER PRIMARY KEY,
       thread_id TEXT NOT NULL,
       checkpoint_ns TEXT NOT NULL DEFAULT '',
       channel TEXT NOT NULL,
       version NOT NULL,
       type TEXT NOT NULL,
       value BLOB
     );
     INSERT INTO checkpoint_values (thread_id, checkpoint_ns, channel, version, type, value)
       SELECT thread_id, checkpoint_ns, channel, version, type, value FROM checkpoint_blobs;
     CREATE INDEX checkpoint_values_migration_key ON checkpoint_values (thread_id, checkpoint_ns, channel, version);
     UPDATE checkpoints SET refs = (
       SELECT json_group_object(v.key, json_array(b.id, v.value))
         FROM json_each(checkpoints.checkpoint, '$.channel_versions') v
         LEFT JOIN checkpoint_values b ON b.thread_id = checkpoints.thread_id AND b.checkpoint_ns = checkpoints.checkpoint_ns
          AND b.channel = v.key AND b.version = v.value);
     DELETE FROM checkpoint_values WHERE id NOT IN (
       SELECT r.value ->> 0 FROM checkpoints c, json_each(c.refs) r WHERE r.value ->> 0 IS NOT NULL);
     DROP INDEX checkpoint_values_migration_key;
     DROP TABLE checkpoint_blobs;
     ALTER TABLE checkpoint_values RENAME TO checkpoint_blobs;`,
    // v3: small values inline in their checkpoint row (see above). v2's refs all name value rows and stay valid.
    "ALTER TABLE checkpoints ADD COLUMN vals TEXT;",
  ],
};
