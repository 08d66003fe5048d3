import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import { prepareTupleRead, type TupleRead } from "./tuple-read.js";

/** A checkpoint row as read back (no channel values: those live in blobs). */
export interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint: string;
  metadata_type: string;
  metadata: Buffer | string;
  /** JSON `{channel: ref}`, each a value-refs.ts `Ref`; see schema.ts. */
  refs: string | null;
  /** JSON array of the row's inline values (schema v3), which refs name by index; null when it holds none. */
  vals: string | null;
}

/**
 * One row of a checkpoint read in a single statement: part 0 is the checkpoint
 * (a = id, b = parent, skeleton, metadata as type/value), part 1 a channel value
 * (a = channel), part 2 a pending write (a = task id, b = channel).
 */
export interface PartRow {
  cid: string;
  part: 0 | 1 | 2;
  a: string;
  b: string | null;
  skeleton: string | null;
  type: string;
  value: Buffer | string | null;
  /** Writes only: task path, task id and idx, the `writesSortKey` order (sorted in JS, see `sortWrites`). */
  k1?: string | null;
  k2?: string | null;
  k3?: number | null;
}

/** A stored channel value found by its row id. */
export interface BlobRow {
  id: number;
  channel: string;
  type: string;
  value: Buffer | null;
}

/** Named parameters of the tuple statements. */
export interface TupleKey {
  thread: string;
  ns: string;
  id?: string;
}

const ROW_COLUMNS = "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata, refs, vals";

/** Every fixed statement the saver runs, prepared once when it is constructed. */
export interface Statements {
  /** Inserts a checkpoint row; a second put of the same id is refused (SQLITE_CONSTRAINT_PRIMARYKEY) and goes to replaceCheckpoint. */
  insertCheckpoint: Statement<[string, string, string, string | null, string, string, string | Uint8Array, string, string | null]>;
  /** Replaces a checkpoint put again under the same id (insertCheckpoint refused it). */
  replaceCheckpoint: Statement<[string | null, string, string, string | Uint8Array, string, string | null, string, string, string]>;
  /** Inserts one value row; its id (`lastInsertRowid`) goes into the refs. */
  insertBlob: Statement<[string, string, string, string | number, string, string | Uint8Array | null]>;
  /** Points a copied thread's refs to value rows (`:ids`, a JSON object old id → new id) at its own rows. */
  renumberRefs: Statement<{ thread: string; ids: string }>;
  /** The refs of a stored checkpoint (a put's parent, or the row a put replaces). */
  refsOf: Statement<[string, string, string], string | null>;
  /**
   * A ref to a value of (channel, version) in one of the thread's 64 newest checkpoints, with the checkpoint holding
   * it (an inline ref of its own row names it `""`): a put with no parent row.
   */
  refByVersion: Statement<{ thread: string; ns: string; channel: string; version: string | number }, { holder: string; ref: string }>;
  /** Deletes values in `:ids` (a JSON array) that no checkpoint of the thread references any more. */
  deleteUnreferenced: Statement<{ thread: string; ns: string; ids: string }>;
  upsertWrite: Statement<[string, string, string, string, number, string, string, Uint8Array | string, string]>;
  latestId: Statement<[string, string], { checkpoint_id: string }>;
  namespacesOf: Statement<[string, number], string>;
  tupleById: TupleRead;
  tupleLatest: TupleRead;
  /**
   * Value rows by id (`:ids`, a JSON array) for a list() page. The thread is checked too: the page's rows were read
   * by another statement, and a row id freed by a deletion in between can be reused by another thread's put.
   */
  blobsByIds: Statement<[{ ids: string; thread: string; ns: string }], BlobRow>;
  /** The `vals` of checkpoints by id (`:ids`, a JSON array): holders of inline values a list() page names. */
  valsByIds: Statement<[{ ids: string; thread: string; ns: string }], { id: string; vals: string | null }>;
  writesOfIds: Statement<[{ thread: string; ns: string; ids: string }], PartRow>;
  sendsOf: Statement<[string, string, string], { type: string; value: Buffer | null }>;
  deleteCheckpoints: Statement<[string]>;
  /** Deletes a thread's values through its checkpoints' refs: run it before deleteCheckpoints. */
  deleteBlobs: Statement<[string]>;
  deleteWrites: Statement<[string]>;
  /** Copy every row of a thread (second parameter) to another thread id (first), for threads.copy. */
  copyCheckpoints: Statement<[string, string]>;
  /** The values a thread's checkpoints reference, for a copy. */
  blobsOfThread: Statement<[string], BlobRow & { checkpoint_ns: string; version: string | number }>;
  copyWrites: Statement<[string, string]>;
}

/** Prepares the saver's statements; the tables must exist. */
export function prepareStatements(db: SqliteDatabase): Statements {
  const writeSql = `INSERT INTO checkpoint_writes
      (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)`;
  return {
    insertCheckpoint: db.prepare(`INSERT INTO checkpoints (${ROW_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    replaceCheckpoint: db.prepare(
      `UPDATE checkpoints SET parent_checkpoint_id = ?, checkpoint = ?, metadata_type = ?, metadata = ?, refs = ?, vals = ?
        WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    insertBlob: db.prepare("INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, value) VALUES (?, ?, ?, ?, ?, ?)"),
    // Inline refs name checkpoints by id, the same in the copy: they stay as they are.
    renumberRefs: db.prepare(
      `UPDATE checkpoints SET refs = (
         SELECT json_group_object(r.key, iif(r.value ->> 2 IS NULL,
                  json_array(json_extract(:ids, '$."' || (r.value ->> 0) || '"'), json(r.value -> 1)), json(r.value)))
           FROM json_each(checkpoints.refs) r)
        WHERE thread_id = :thread`,
    ),
    refsOf: db.prepare<[string, string, string], string | null>(
      "SELECT refs FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
    ).pluck(),
    refByVersion: db.prepare<{ thread: string; ns: string; channel: string; version: string | number }, { holder: string; ref: string }>(
      `SELECT c.checkpoint_id AS holder, r.value AS ref
         FROM (SELECT checkpoint_id, refs FROM checkpoints WHERE thread_id = :thread AND checkpoint_ns = :ns ORDER BY checkpoint_id DESC LIMIT 64) c
        CROSS JOIN json_each(c.refs) r
        WHERE r.key = :channel AND r.value ->> 0 IS NOT NULL AND r.value ->> 1 = :version
        ORDER BY c.checkpoint_id DESC LIMIT 1`,
    ),
    deleteUnreferenced: db.prepare(
      `DELETE FROM checkpoint_blobs WHERE id IN (SELECT value FROM json_each(:ids)) AND id NOT IN (
         SELECT r.value ->> 0 FROM checkpoints c, json_each(c.refs) r
          WHERE c.thread_id = :thread AND c.checkpoint_ns = :ns AND r.value ->> 0 IS NOT NULL AND r.value ->> 2 IS NULL)`,
    ),
    upsertWrite: db.prepare(
      `${writeSql} DO UPDATE SET channel = excluded.channel, type = excluded.type,
         value = excluded.value, task_path = excluded.task_path`,
    ),
    tupleById: prepareTupleRead(db, "SELECT :id"),
    tupleLatest: prepareTupleRead(
      db,
      "SELECT checkpoint_id FROM checkpoints WHERE thread_id = :thread AND checkpoint_ns = :ns ORDER BY checkpoint_id DESC LIMIT 1",
    ),
    // list() pages: each distinct value of the page once (:ids is a JSON array of row ids),
    // then the writes of every checkpoint in :ids (a JSON array).
    blobsByIds: db.prepare(
      `SELECT b.id AS id, b.channel AS channel, b.type AS type, b.value AS value
         FROM json_each(:ids) k CROSS JOIN checkpoint_blobs b
        WHERE b.id = k.value AND b.thread_id = :thread AND b.checkpoint_ns = :ns`,
    ),
    valsByIds: db.prepare(
      `SELECT h.checkpoint_id AS id, h.vals AS vals FROM json_each(:ids) k CROSS JOIN checkpoints h
        WHERE h.thread_id = :thread AND h.checkpoint_ns = :ns AND h.checkpoint_id = k.value`,
    ),
    writesOfIds: db.prepare(
      `SELECT w.checkpoint_id AS cid, 2 AS part, w.task_id AS a, w.channel AS b, NULL AS skeleton, w.type AS type, w.value AS value,
              w.task_path AS k1, w.task_id AS k2, w.idx AS k3
         FROM json_each(:ids) t CROSS JOIN checkpoint_writes w
        WHERE w.thread_id = :thread AND w.checkpoint_ns = :ns AND w.checkpoint_id = t.value`,
    ),
    namespacesOf: db.prepare<[string, number], string>("SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ? LIMIT ?").pluck(),
    latestId: db.prepare(
      `SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
       ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    sendsOf: db.prepare(
      `SELECT type, value FROM checkpoint_writes
        WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = '__pregel_tasks'
        ORDER BY task_path, task_id, idx`,
    ),
    deleteCheckpoints: db.prepare("DELETE FROM checkpoints WHERE thread_id = ?"),
    // By the thread's refs, before its checkpoints go: the table has no thread index (see schema.ts).
    deleteBlobs: db.prepare(
      `DELETE FROM checkpoint_blobs WHERE id IN (
         SELECT r.value ->> 0 FROM checkpoints c, json_each(c.refs) r WHERE c.thread_id = ? AND r.value ->> 2 IS NULL)`,
    ),
    deleteWrites: db.prepare("DELETE FROM checkpoint_writes WHERE thread_id = ?"),
    copyCheckpoints: db.prepare(
      `INSERT INTO checkpoints (${ROW_COLUMNS})
       SELECT ?, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata_type, metadata, refs, vals FROM checkpoints WHERE thread_id = ?`,
    ),
    blobsOfThread: db.prepare(
      `SELECT b.id AS id, b.checkpoint_ns AS checkpoint_ns, b.channel AS channel, b.version AS version, b.type AS type, b.value AS value
         FROM checkpoint_blobs b WHERE b.id IN (
           SELECT r.value ->> 0 FROM checkpoints c, json_each(c.refs) r WHERE c.thread_id = ? AND r.value ->> 2 IS NULL)`,
    ),
    copyWrites: db.prepare(
      `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
       SELECT ?, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path FROM checkpoint_writes WHERE thread_id = ?`,
    ),
  };
}

/** A multi-row insert of `count` task writes (9 parameters each); a write already stored is kept. */
export function prepareWriteInsert(db: SqliteDatabase, count: number): Statement<(string | number | Uint8Array)[]> {
  const rows = Array.from({ length: count }, () => "(?, ?, ?, ?, ?, ?, ?, ?, ?)").join(", ");
  return db.prepare(`INSERT INTO checkpoint_writes
      (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
    VALUES ${rows} ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING`);
}
