/**
 * The refs of each thread's last committed checkpoint, kept in memory so a put whose parent it is inherits them
 * without reading and parsing the parent's row (a SELECT and a JSON.parse, a tenth of a batched put's CPU).
 *
 * An entry is a fact about a committed row, and stays one while nothing rewrites that row's refs. Only this
 * module's code writes the checkpoint tables, so what can rewrite them is known:
 * - another connection (a process or a second connection in this one): `PRAGMA data_version` moves; every write
 *   transaction checks it first ({@link RefsMemo.begin}), inside the transaction, where no other connection can commit;
 * - on this connection, a checkpoint put again under its own id (its children's refs to its inline values move to
 *   value rows), a prune, a deletion or a copy: each forgets the thread ({@link RefsMemo.forgetThread}) as it writes.
 * Entries are recorded only once their transaction committed at the top level ({@link RefsMemo.committed}): a
 * rolled-back write leaves none. The memo is per connection, not per saver: agentrt opens a saver per run on one
 * connection, and one saver's deletion must reach every saver's memo.
 * @module
 */
import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { Refs } from "./value-refs.js";

/** Threads remembered; a put on a thread not among them reads its parent's row, as before. */
const MAX_THREADS = 4096;
/**
 * Namespaces remembered per thread besides the root's: each subgraph call puts under a namespace of its own
 * (`node:<task id>`) that is rarely written again once its task ended, so a long-lived thread would otherwise
 * keep an entry per call for ever.
 */
const MAX_NAMESPACES = 8;

interface Entry {
  id: string;
  refs: Refs;
}

/** The refs of each (thread, namespace)'s last committed put on one connection; see the module doc. */
export class RefsMemo {
  /** thread → namespace → entry, in the order threads were first remembered. */
  private readonly threads = new Map<string, Map<string, Entry>>();
  private readonly dataVersion: Statement<[], number>;
  private lastDataVersion: number | undefined;
  /** Moves on every forget: a write made before one records nothing, though its transaction commits after it. */
  private epoch = 0;

  constructor(db: SqliteDatabase) {
    this.dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  }

  /** Run first inside each write transaction: forgets everything if another connection committed since the last. */
  begin(): void {
    const version = this.dataVersion.get();
    if (version !== this.lastDataVersion) {
      this.threads.clear();
      this.epoch += 1;
      this.lastDataVersion = version;
    }
  }

  /** The stored refs of checkpoint `id`, if it is the one remembered for its thread and namespace. */
  get(thread: string, ns: string, id: string): Refs | undefined {
    const entry = this.threads.get(thread)?.get(ns);
    return entry !== undefined && entry.id === id ? entry.refs : undefined;
  }

  /** What {@link committed} is given back: the memo's state when the refs were written. */
  stamp(): number {
    return this.epoch;
  }

  /**
   * Records the refs of checkpoint `id` once the transaction that wrote them committed (never inside it), unless
   * something was forgotten since `stamp` (taken when they were written): a row of that thread may have changed since.
   */
  committed(thread: string, ns: string, id: string, refs: Refs, stamp: number): void {
    if (stamp !== this.epoch) return;
    let namespaces = this.threads.get(thread);
    if (namespaces === undefined) {
      // Oldest thread out first (by first write, not last: moving a thread to the end on every put cost more than its misses).
      if (this.threads.size >= MAX_THREADS) {
        const oldest = this.threads.keys().next();
        if (oldest.done !== true) this.threads.delete(oldest.value);
      }
      namespaces = new Map();
      this.threads.set(thread, namespaces);
    }
    const entry = namespaces.get(ns);
    if (entry === undefined) {
      if (namespaces.size > MAX_NAMESPACES) forgetOldestSubgraph(namespaces);
      namespaces.set(ns, { id, refs });
    }
    else {
      // The entry is the memo's own: updated in place, a put allocates nothing here.
      entry.id = id;
      entry.refs = refs;
    }
  }

  /** Forgets every namespace of a thread whose stored refs this connection is about to rewrite. */
  forgetThread(thread: string): void {
    this.threads.delete(thread);
    this.epoch += 1;
  }

  /** Threads remembered (for tests). */
  get size(): number {
    return this.threads.size;
  }

  /** (thread, namespace) entries remembered (for tests). */
  get entries(): number {
    let count = 0;
    for (const namespaces of this.threads.values()) count += namespaces.size;
    return count;
  }
}

/** Drops the first remembered namespace other than the root's (the root's is the one every run writes). */
function forgetOldestSubgraph(namespaces: Map<string, Entry>): void {
  for (const ns of namespaces.keys()) {
    if (ns !== "") {
      namespaces.delete(ns);
      return;
    }
  }
}

const memos = new WeakMap<SqliteDatabase, RefsMemo>();

/** The memo of a connection, shared by every saver on it. */
export function refsMemoOf(db: SqliteDatabase): RefsMemo {
  let memo = memos.get(db);
  if (memo === undefined) {
    memo = new RefsMemo(db);
    memos.set(db, memo);
  }
  return memo;
}
