/**
 * The SQLite saver's cache of recent `getTuple` reads (see {@link TupleCache}) and the step that turns a cached entry
 * into a reader's own tuple ({@link tupleOf}).
 * @module
 */
import type { Statement } from "better-sqlite3";
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { SqliteDatabase } from "../../src/db/index.js";
import { copyTuple, keepDecoded, type DecodedTuple } from "../shared/decoded-tuple.js";
import type { PartRow } from "./statements.js";
import type { CheckpointHead } from "./tuple.js";

/** A tuple read split into its head and parts. */
export interface TupleRows {
  head: CheckpointHead;
  parts: PartRow[];
}

/**
 * One cached read: its rows, and once a second read decoded them into a tuple that can be copied faithfully, that
 * tuple (private: readers get copies). The first read keeps what it decoded: a checkpoint read once (a cold read by
 * id) pays no classification or copy. The rows are dropped once decoded; a reader that took them still holds them.
 */
export interface TupleEntry {
  /** `readBefore`: a reader already decoded these rows (and kept what it decoded). */
  state: { rows: TupleRows; readBefore?: boolean } | { decoded: DecodedTuple };
}

/** Entries kept; a graph run reads one thread again and again, so a small cache is enough. */
const MAX_ENTRIES = 128;
/**
 * What the entries may weigh together: stored bytes, deflated ones counted {@link DEFLATED_WEIGHT} times (decoded,
 * a value takes several times its text).
 */
const MAX_WEIGHT = 32 * 1024 * 1024;
const DEFLATED_WEIGHT = 4;

interface Slot {
  dataVersion: number;
  totalChanges: number;
  weight: number;
  entry: TupleEntry | null;
}

/**
 * Recent tuple reads, valid while the database is unchanged. "Unchanged" is `data_version` (bumped by commits of
 * any other connection, in this process or another) plus `total_changes()` (bumped by every write on this
 * connection, whoever made it: the saver's own puts, deletions and copies, raw SQL).
 *
 * A hit runs `PRAGMA data_version` alone, in its own implicit read transaction: one WAL read lock taken and dropped
 * (the system calls that are most of a hit's cost), and no BEGIN or COMMIT. A miss reads the stamp before the rows
 * (two statements, each its own read transaction): a commit between them makes the stamp older than the rows, so
 * the next check misses again, never the other way round. `total_changes()` reads no page and costs nothing.
 * Inside a transaction nothing is cached or served: a rollback would undo rows without changing either counter.
 * Schema changes (DROP, ALTER, VACUUM) move neither counter: migrations run before a saver's first read.
 */
export class TupleCache {
  private readonly dataVersion: Statement<[], number>;
  private readonly totalChanges: Statement<[], number>;
  private readonly slots = new Map<string, Slot>();
  private weight = 0;

  /** `reusable` turns a row's value into the form cheapest to decode again. */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly reusable: (type: string, value: Buffer | string | null) => Buffer | string | null = (_, value) => value,
  ) {
    // Two statements, not the pragma_data_version table function: a virtual table costs more than both.
    this.dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.totalChanges = db.prepare<[], number>("SELECT total_changes()").pluck();
  }

  /**
   * The entry under `key` if the database has not changed since it was stored, else a new one of `load()`'s rows
   * (null: no such checkpoint). `load` must read through this connection and nothing else.
   */
  read(key: string, load: () => TupleRows | null): TupleEntry | null {
    if (this.db.inTransaction) {
      const rows = load();
      return rows === null ? null : { state: { rows } };
    }
    const dataVersion = this.dataVersion.get() ?? 0;
    const totalChanges = this.totalChanges.get() ?? 0;
    const slot = this.slots.get(key);
    if (slot !== undefined) {
      if (slot.dataVersion === dataVersion && slot.totalChanges === totalChanges) return slot.entry;
      this.forget(key, slot);
    }
    return this.set(key, dataVersion, totalChanges, load());
  }

  /** Forgets every read kept (the saver closed). */
  clear(): void {
    this.slots.clear();
    this.weight = 0;
  }

  private forget(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.weight -= slot.weight;
  }

  /** Stores a read, its values in their reusable form; returns the entry it stored. */
  private set(key: string, dataVersion: number, totalChanges: number, read: TupleRows | null): TupleEntry | null {
    const rows = read === null ? undefined : { head: read.head, parts: read.parts.map((row) => ({ ...row, value: this.reusable(row.type, row.value) })) };
    const entry = rows === undefined ? null : { state: { rows } };
    const weight = rows === undefined ? 0 : weightOf(rows);
    if (weight > MAX_WEIGHT) return entry;
    for (const [oldest, old] of this.slots) {
      if (this.slots.size < MAX_ENTRIES && this.weight + weight <= MAX_WEIGHT) break;
      this.forget(oldest, old);
    }
    this.slots.set(key, { dataVersion, totalChanges, weight, entry });
    this.weight += weight;
    return entry;
  }
}

const sizeOf = (value: Buffer | string | null): number => (value === null ? 0 : value.length);

/** A read's share of {@link MAX_WEIGHT}. */
function weightOf(rows: TupleRows): number {
  let weight = rows.head.skeleton.length + sizeOf(rows.head.metadata);
  for (const part of rows.parts) weight += sizeOf(part.value) * (part.type.startsWith("z:") ? DEFLATED_WEIGHT : 1);
  return weight;
}

/**
 * A reader's own tuple from a cached entry: decoded from its rows by `decode` on the first two reads, kept decoded
 * from the second on (a checkpoint read once, as by id, pays no classification or copy), copied for every reader
 * but the values of `shared` channels once kept (for a read-only view: see copyTuple).
 */
export async function tupleOf(entry: TupleEntry, key: { thread: string; ns: string }, requested: RunnableConfig | undefined,
  decode: (rows: TupleRows) => Promise<CheckpointTuple>, shared?: ReadonlySet<string>): Promise<CheckpointTuple> {
  if ("decoded" in entry.state) return copyTuple(entry.state.decoded, requested, shared);
  const { state } = entry;
  const tuple = await decode(state.rows);
  if (state.readBefore !== true) {
    state.readBefore = true;
    return tuple;
  }
  const decoded = keepDecoded(tuple, key);
  if (decoded === undefined) return tuple;
  // The decoded tuple is the cache's now: this reader gets a copy like every later one.
  entry.state = { decoded };
  return copyTuple(decoded, requested, shared);
}
