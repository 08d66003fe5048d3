/**
 * The saver's write paths: a checkpoint row with its changed channel blobs and a task's pending writes
 * as plain writes (run inside a commit batch or a group commit), a thread's deletion and copy as transactions.
 * @module
 */
import type { Statement } from "better-sqlite3";
import { immediateTransaction, type SqliteDatabase } from "../../src/db/index.js";
import type { StoredValue } from "../shared/codec.js";
import { prepareBlobInsert, prepareWriteInsert, type Statements } from "./statements.js";

/** Rows per multi-row blob insert: 6 parameters each stays far under SQLite's 32,766. */
const BLOB_ROWS_PER_STATEMENT = 256;
/** Rows per multi-row write insert (9 parameters each). */
const WRITE_ROWS_PER_STATEMENT = 128;

/** thread, namespace, id, parent id, skeleton JSON, metadata type, metadata. */
export type CheckpointInsert = [string, string, string, string | null, string, string, string | Uint8Array];
/** channel, version, encoded value. */
export type BlobRow = [string, string | number, StoredValue];
/** thread, namespace, checkpoint id, task id, task path. */
export type WriteKey = [string, string, string, string, string];

/** One pending write of a task; `upsert` for special channels (errors, interrupts), which replace. */
export interface WriteRecord {
  idx: number;
  channel: string;
  stored: StoredValue;
  upsert: boolean;
}

/** The prepared write paths of one saver connection. */
export class CheckpointWrites {
  /** Inserts a checkpoint and its blobs (no transaction of its own: a commit batch or group commit wraps it). */
  readonly writePut: (row: CheckpointInsert, blobs: BlobRow[]) => void;
  /** Inserts or upserts a task's writes (no transaction of its own). */
  readonly writeWrites: (key: WriteKey, records: WriteRecord[]) => void;
  /** Deletes a thread's writes, blobs and checkpoints in a transaction. */
  readonly deleteTransaction: (threadId: string) => void;
  /** Copies a thread's checkpoints, blobs and writes to another thread id in a transaction. */
  readonly copyTransaction: (to: string, from: string) => void;
  private readonly db: SqliteDatabase;
  private readonly blobInserts = new Map<number, Statement<(string | number | Uint8Array)[]>>();
  private readonly writeInserts = new Map<number, Statement<(string | number | Uint8Array)[]>>();

  /** Wraps the saver's prepared statements; multi-row blob inserts are prepared on first use. */
  constructor(db: SqliteDatabase, st: Statements) {
    this.db = db;
    this.writePut = (row: CheckpointInsert, blobs: BlobRow[]) => {
      st.insertCheckpoint.run(...row);
      // Multi-row statements for the changed channels (one native call, not one per channel), chunked under SQLite's parameter limit.
      for (let start = 0; start < blobs.length; start += BLOB_ROWS_PER_STATEMENT) {
        const chunk = blobs.slice(start, start + BLOB_ROWS_PER_STATEMENT);
        const params: (string | number | Uint8Array)[] = [];
        for (const [channel, version, stored] of chunk) params.push(row[0], row[1], channel, version, stored.type, stored.value);
        this.cached(this.blobInserts, chunk.length, prepareBlobInsert).run(...params);
      }
    };
    this.writeWrites = ([thread, ns, id, taskId, taskPath]: WriteKey, records: WriteRecord[]) => {
      // Special channels replace what is stored; the rest keep the first write, in one multi-row statement.
      const plain = records.filter((r) => !r.upsert);
      for (const { idx, channel, stored } of records.filter((r) => r.upsert)) {
        st.upsertWrite.run(thread, ns, id, taskId, idx, channel, stored.type, stored.value, taskPath);
      }
      for (let start = 0; start < plain.length; start += WRITE_ROWS_PER_STATEMENT) {
        const chunk = plain.slice(start, start + WRITE_ROWS_PER_STATEMENT);
        const params: (string | number | Uint8Array)[] = [];
        for (const { idx, channel, stored } of chunk) params.push(thread, ns, id, taskId, idx, channel, stored.type, stored.value, taskPath);
        this.cached(this.writeInserts, chunk.length, prepareWriteInsert).run(...params);
      }
    };
    this.copyTransaction = immediateTransaction(db, (to: string, from: string) => {
      st.copyCheckpoints.run(to, from);
      st.copyBlobs.run(to, from);
      st.copyWrites.run(to, from);
    });
    this.deleteTransaction = immediateTransaction(db, (threadId: string) => {
      st.deleteWrites.run(threadId);
      st.deleteBlobs.run(threadId);
      st.deleteCheckpoints.run(threadId);
    });
  }

  /** The prepared multi-row statement for `count` rows, prepared on first use. */
  private cached(
    statements: Map<number, Statement<(string | number | Uint8Array)[]>>,
    count: number,
    prepare: (db: SqliteDatabase, count: number) => Statement<(string | number | Uint8Array)[]>,
  ): Statement<(string | number | Uint8Array)[]> {
    let statement = statements.get(count);
    if (statement === undefined) {
      statement = prepare(this.db, count);
      statements.set(count, statement);
    }
    return statement;
  }
}
