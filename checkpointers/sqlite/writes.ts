/**
 * The saver's write paths: a checkpoint row with its changed channel values and a task's pending writes
 * as plain writes (run inside a commit batch or a group commit), a thread's deletion and copy as transactions.
 * @module
 */
import type { Statement } from "better-sqlite3";
import { immediateTransaction, type SqliteDatabase } from "../../src/db/index.js";
import type { StoredValue } from "../shared/codec.js";
import { prepareWriteInsert, type Statements } from "./statements.js";
import { evictInline } from "./inline-eviction.js";
import { refsMemoOf, type RefsMemo } from "./refs-memo.js";
import { SELF, parseRefs, resolveRefs, valueRowIds, type Ref } from "./value-refs.js";

/** Rows per multi-row write insert (9 parameters each). */
const WRITE_ROWS_PER_STATEMENT = 128;

/** thread, namespace, id, parent id, skeleton JSON, metadata type, metadata. */
export type CheckpointInsert = [string, string, string, string | null, string, string, string | Uint8Array];
/** channel, version, and the value: JSON text to keep inline in the checkpoint row (schema v3), or a value row's. */
export type PutValue = [string, string | number, string | StoredValue];
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
  /**
   * Inserts a checkpoint and its changed values (no transaction of its own: a commit batch or group commit
   * wraps it); `versions` is the checkpoint's channel_versions, whose unchanged channels keep the parent's refs.
   * Returns what to run once that transaction has committed (it remembers the row's refs for its child's put).
   */
  readonly writePut: (row: CheckpointInsert, values: PutValue[], versions: Record<string, string | number>, changed: Readonly<Record<string, unknown>> | undefined) => () => void;
  /** The connection's memo of each thread's last refs (refs-memo.ts): every write transaction begins with its check. */
  readonly memo: RefsMemo;
  /** Inserts or upserts a task's writes (no transaction of its own). */
  readonly writeWrites: (key: WriteKey, records: WriteRecord[]) => void;
  /** Deletes a thread's writes, blobs and checkpoints in a transaction. */
  readonly deleteTransaction: (threadId: string) => void;
  /** Copies a thread's checkpoints, blobs and writes to another thread id in a transaction. */
  readonly copyTransaction: (to: string, from: string) => void;
  private readonly db: SqliteDatabase;
  private readonly writeInserts = new Map<number, Statement<(string | number | Uint8Array)[]>>();

  /** Wraps the saver's prepared statements; multi-row write inserts are prepared on first use. */
  constructor(db: SqliteDatabase, st: Statements) {
    this.db = db;
    const memo = refsMemoOf(db);
    this.memo = memo;
    this.writePut = (row: CheckpointInsert, values: PutValue[], versions: Record<string, string | number>, changed: Readonly<Record<string, unknown>> | undefined) => {
      const [thread, ns, id, parentId] = row;
      const stored = new Map<string, Ref>();
      const inline: string[] = [];
      for (const [channel, version, value] of values) {
        if (typeof value === "string") {
          stored.set(channel, [SELF, version, inline.length]);
          inline.push(value);
        } else {
          // One row each, its id from lastInsertRowid: cheaper in better-sqlite3 than a multi-row INSERT … RETURNING.
          const { lastInsertRowid } = st.insertBlob.run(thread, ns, channel, version, value.type, value.value);
          stored.set(channel, [Number(lastInsertRowid), version]);
        }
      }
      const parentRefs = parentId === null ? undefined : memo.get(thread, ns, parentId);
      const refs = resolveRefs(st, { thread, ns, parentId, versions, changed, stored, parentRefs });
      const refsText = JSON.stringify(refs);
      // Each text is JSON.stringify output: joined, they are a JSON array whose elements SQLite's `->` gives back as is.
      const vals = inline.length === 0 ? null : `[${inline.join(",")}]`;
      try {
        st.insertCheckpoint.run(...row, refsText, vals);
      } catch (error) {
        if ((error as { code?: unknown }).code !== "SQLITE_CONSTRAINT_PRIMARYKEY") throw error;
        // Rows of the thread that name this one's inline values get new refs: what the memo holds of them goes.
        memo.forgetThread(thread);
        // The same checkpoint put again: other checkpoints that name its inline values get them as value rows first
        // (its vals change), then it is replaced and the value rows only the replaced row referenced go.
        // The new refs too: with no parent row they may have found a value of the row they replace.
        evictInline(db, st, thread, ns, { holds: (holder) => holder === id, pending: refs });
        const replaced = valueRowIds(parseRefs(st.refsOf.get(thread, ns, id)));
        const [, , , , skeleton, metadataType, metadata] = row;
        st.replaceCheckpoint.run(parentId, skeleton, metadataType, metadata, JSON.stringify(refs), vals, thread, ns, id);
        st.deleteUnreferenced.run({ thread, ns, ids: JSON.stringify(replaced) });
      }
      const stamp = memo.stamp();
      return () => memo.committed(thread, ns, id, refs, stamp);
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
      memo.forgetThread(to);
      // The copy's values are its own rows (a deletion of either thread must not take the other's), so refs are renumbered.
      const renumbered: Record<string, number> = {};
      for (const blob of st.blobsOfThread.all(from)) {
        renumbered[String(blob.id)] = Number(st.insertBlob.run(to, blob.checkpoint_ns, blob.channel, blob.version, blob.type, blob.value).lastInsertRowid);
      }
      st.copyCheckpoints.run(to, from);
      st.renumberRefs.run({ thread: to, ids: JSON.stringify(renumbered) });
      st.copyWrites.run(to, from);
    });
    this.deleteTransaction = immediateTransaction(db, (threadId: string) => {
      memo.forgetThread(threadId);
      st.deleteWrites.run(threadId);
      st.deleteBlobs.run(threadId);
      st.deleteCheckpoints.run(threadId);
    });
  }

  /** The prepared multi-row statement for `count` rows, prepared on first use. */
  private cached<S>(statements: Map<number, S>, count: number, prepare: (db: SqliteDatabase, count: number) => S): S {
    let statement = statements.get(count);
    if (statement === undefined) {
      statement = prepare(this.db, count);
      statements.set(count, statement);
    }
    return statement;
  }
}

