import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { PartRow } from "./statements.js";

/** Entries kept; a graph run reads one thread again and again, so a small cache is enough. */
const MAX_ENTRIES = 128;

/**
 * The raw rows of recent tuple reads, valid while the database is unchanged.
 * "Unchanged" is `data_version` (bumped by commits of any other connection,
 * in this process or another) plus `total_changes()` (bumped by every write
 * on this connection, whoever made it), read in two cheap statements: far
 * cheaper than the tuple read itself. Rows are decoded again on every hit, so
 * callers never share objects.
 */
export class TupleCache {
  private readonly dataVersion: Statement<[], number>;
  private readonly totalChanges: Statement<[], number>;
  private readonly entries = new Map<string, { stamp: string; rows: PartRow[] }>();

  constructor(db: SqliteDatabase) {
    // Two statements, not the pragma_data_version table function: a virtual table costs more than both.
    this.dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
  }

  /** The current database stamp; take it before the read whose rows are stored under it. */
  stamp(): string {
    return `${this.dataVersion.get() ?? ""}:${this.totalChanges.get() ?? ""}`;
  }

  /** Rows stored under `key` if the database has not changed since, else undefined. */
  get(key: string, stamp: string): PartRow[] | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.stamp === stamp) return entry.rows;
    this.entries.delete(key);
    return undefined;
  }

  /** Stores rows read under `stamp`. */
  set(key: string, stamp: string, rows: PartRow[]): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { stamp, rows });
  }
}
