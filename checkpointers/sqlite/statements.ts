import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";

/** A checkpoint row as read back (no channel values: those live in blobs). */
export interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: string;
  metadata_type: string;
  metadata: Buffer | string;
}

/** One stored channel value. */
export interface BlobRow {
  channel: string;
  type: string;
  value: Buffer | null;
}

/** One stored pending write. */
export interface WriteRow {
  task_id: string;
  channel: string;
  type: string;
  value: Buffer | null;
}

const ROW_COLUMNS = "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata";

/** Every fixed statement the saver runs, prepared once when it is constructed. */
export interface Statements {
  insertCheckpoint: Statement<[string, string, string, string | null, string, string, string | Uint8Array]>;
  insertBlob: Statement<[string, string, string, string, string, Uint8Array | null]>;
  insertWrite: Statement<[string, string, string, string, number, string, string, Uint8Array, string]>;
  upsertWrite: Statement<[string, string, string, string, number, string, string, Uint8Array, string]>;
  checkpointById: Statement<[string, string, string], CheckpointRow>;
  latestCheckpoint: Statement<[string, string], CheckpointRow>;
  latestId: Statement<[string, string], { checkpoint_id: string }>;
  blobsOf: Statement<[string, string, string], BlobRow>;
  writesOf: Statement<[string, string, string], WriteRow>;
  sendsOf: Statement<[string, string, string], { type: string; value: Buffer | null }>;
  deleteCheckpoints: Statement<[string]>;
  deleteBlobs: Statement<[string]>;
  deleteWrites: Statement<[string]>;
}

/** Prepares the saver's statements; the tables must exist. */
export function prepareStatements(db: SqliteDatabase): Statements {
  const writeSql = `INSERT INTO checkpoint_writes
      (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)`;
  return {
    insertCheckpoint: db.prepare(
      `INSERT INTO checkpoints (${ROW_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
         parent_checkpoint_id = excluded.parent_checkpoint_id, checkpoint = excluded.checkpoint,
         metadata_type = excluded.metadata_type, metadata = excluded.metadata`,
    ),
    // A (channel, version) is written once: later checkpoints that did not change the channel reference it.
    insertBlob: db.prepare(
      `INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, value)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    ),
    insertWrite: db.prepare(`${writeSql} DO NOTHING`),
    upsertWrite: db.prepare(
      `${writeSql} DO UPDATE SET channel = excluded.channel, type = excluded.type,
         value = excluded.value, task_path = excluded.task_path`,
    ),
    checkpointById: db.prepare(
      `SELECT ${ROW_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    latestCheckpoint: db.prepare(
      `SELECT ${ROW_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
       ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    latestId: db.prepare(
      `SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
       ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    blobsOf: db.prepare(
      `SELECT b.channel, b.type, b.value
         FROM checkpoints c, json_each(c.checkpoint, '$.channel_versions') v
         JOIN checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
          AND b.channel = v.key AND b.version = CAST(v.value AS TEXT)
        WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id = ?`,
    ),
    writesOf: db.prepare(
      `SELECT task_id, channel, type, value FROM checkpoint_writes
        WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
        ORDER BY task_path, task_id, idx`,
    ),
    sendsOf: db.prepare(
      `SELECT type, value FROM checkpoint_writes
        WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = '__pregel_tasks'
        ORDER BY task_path, task_id, idx`,
    ),
    deleteCheckpoints: db.prepare("DELETE FROM checkpoints WHERE thread_id = ?"),
    deleteBlobs: db.prepare("DELETE FROM checkpoint_blobs WHERE thread_id = ?"),
    deleteWrites: db.prepare("DELETE FROM checkpoint_writes WHERE thread_id = ?"),
  };
}
