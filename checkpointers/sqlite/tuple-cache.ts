import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { PartRow } from "./statements.js";
import type { CheckpointHead } from "./tuple.js";

/** A tuple read already split into its head and parts; null when the checkpoint does not exist. */
export type CachedTuple = { head: CheckpointHead; parts: PartRow[] } | null;

/** Entries kept; a graph run reads one thread again and again, so a small cache is enough. */
const MAX_ENTRIES = 128;

/**
 * Recent tuple reads (raw rows, not decoded), valid while the database is unchanged.
 * "Unchanged" is `data_version` (bumped by commits of any other connection,
 * in this process or another) plus `total_changes()` (bumped by every write
 * on this connection, whoever made it), read in two cheap statements: far
 * cheaper than the tuple read itself. Rows are decoded again on every hit, so
 * callers never share objects.
 */
export class TupleCache {
  private readonly dataVersion: Statement<[], number>;
  private readonly totalChanges: Statement<[], number>;
  private readonly entries = new Map<string, { stamp: string; tuple: CachedTuple }>();

  /** `reusable` turns a row's value into the form cheapest to decode on every hit. */
  constructor(
    db: SqliteDatabase,
    private readonly reusable: (type: string, value: Buffer | string | null) => Buffer | string | null = (_, value) => value,
  ) {
    // Two statements, not the pragma_data_version table function: a virtual table costs more than both.
    this.dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
  }

  /** The current database stamp; take it before the read whose rows are stored under it. */
  stamp(): string {
    return `${this.dataVersion.get() ?? ""}:${this.totalChanges.get() ?? ""}`;
  }

  /** The tuple stored under `key` if the database has not changed since, else undefined. */
  get(key: string, stamp: string): CachedTuple | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.stamp === stamp) return entry.tuple;
    this.entries.delete(key);
    return undefined;
  }

  /** Stores a tuple read under `stamp`, its values in their reusable form; returns what it stored. */
  set(key: string, stamp: string, read: CachedTuple): CachedTuple {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    const tuple = read === null ? null : { head: read.head, parts: read.parts.map((row) => ({ ...row, value: this.reusable(row.type, row.value) })) };
    this.entries.set(key, { stamp, tuple });
    return tuple;
  }
}
