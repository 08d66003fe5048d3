import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { PartRow } from "./statements.js";
import type { CheckpointHead } from "./tuple.js";

/** A tuple read already split into its head and parts; null when the checkpoint does not exist. */
export type CachedTuple = { head: CheckpointHead; parts: PartRow[] } | null;

/** Entries kept; a graph run reads one thread again and again, so a small cache is enough. */
const MAX_ENTRIES = 128;

interface Entry {
  dataVersion: number;
  totalChanges: number;
  tuple: CachedTuple;
}

/**
 * Recent tuple reads (raw rows, not decoded), valid while the database is unchanged.
 * "Unchanged" is `data_version` (bumped by commits of any other connection,
 * in this process or another) plus `total_changes()` (bumped by every write
 * on this connection, whoever made it). Rows are decoded again on every hit,
 * so callers never share objects.
 *
 * Any statement that reads the file takes and drops WAL read locks (system
 * calls, most of a small read's cost), so a miss reads its stamp and its rows
 * in one deferred read transaction: one lock, not two. `total_changes()`
 * reads no page and costs nothing.
 */
export class TupleCache {
  private readonly dataVersion: Statement<[], number>;
  private readonly totalChanges: Statement<[], number>;
  private readonly begin: Statement<[]>;
  private readonly commit: Statement<[]>;
  private readonly entries = new Map<string, Entry>();

  /** `reusable` turns a row's value into the form cheapest to decode on every hit. */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly reusable: (type: string, value: Buffer | string | null) => Buffer | string | null = (_, value) => value,
  ) {
    // Two statements, not the pragma_data_version table function: a virtual table costs more than both.
    this.dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
    this.begin = db.prepare("BEGIN");
    this.commit = db.prepare("COMMIT");
  }

  /**
   * The tuple under `key` if the database has not changed since it was stored, else
   * `load()`'s, stored. `load` must read through this connection and nothing else.
   */
  read(key: string, load: () => CachedTuple): CachedTuple {
    if (this.db.inTransaction) return this.readIn(key, load);
    this.begin.run();
    try {
      return this.readIn(key, load);
    } finally {
      // A read transaction: COMMIT only drops its lock (and cannot fail for want of a write lock).
      if (this.db.inTransaction) this.commit.run();
    }
  }

  private readIn(key: string, load: () => CachedTuple): CachedTuple {
    const dataVersion = this.dataVersion.get() ?? 0;
    const totalChanges = this.totalChanges.get() ?? 0;
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.dataVersion === dataVersion && entry.totalChanges === totalChanges) return entry.tuple;
      this.entries.delete(key);
    }
    return this.set(key, dataVersion, totalChanges, load());
  }

  /** Stores a tuple read, its values in their reusable form; returns what it stored. */
  private set(key: string, dataVersion: number, totalChanges: number, read: CachedTuple): CachedTuple {
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    const tuple = read === null ? null : { head: read.head, parts: read.parts.map((row) => ({ ...row, value: this.reusable(row.type, row.value) })) };
    this.entries.set(key, { dataVersion, totalChanges, tuple });
    return tuple;
  }
}
