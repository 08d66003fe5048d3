/**
 * Write transactions that wait for another process's write lock in steps of
 * a tenth of a millisecond instead of SQLite's busy handler, whose first wait
 * is a whole millisecond (then 2, 5, 10 …). A write holds the lock for some
 * tens of microseconds, so with several processes on one file (a server's
 * worker processes) those sleeps stalled each process's event loop for about
 * a fifth of its time; the loop here retries within ~0.1 ms.
 *
 * Switching the busy timeout off and back costs two `exec`s (~10 µs, a twentieth
 * of a checkpoint put), so a connection that has not met another writer lately
 * begins with its timeout as it is: uncontended, SQLite never waits. A BEGIN
 * that was refused or took longer than a wait's first step puts the file in
 * contended mode (the short-step loop) for CONTENDED_MS — a slow one only if another connection committed
 * since this one's last write transaction, which a BEGIN that waited for another writer always finds.
 * @module
 */
import { busyTimeoutOf, setBusyTimeoutQuietly } from "./busy-timeout.js";
import type { SqliteDatabase } from "./open-database.js";

interface LockStatements {
  begin: { run(): unknown };
  commit: { run(): unknown };
  rollback: { run(): unknown };
  dataVersion: { get(): unknown };
  /** `data_version` seen inside this connection's last write transaction; undefined before its first. */
  lastDataVersion?: unknown;
}

const statements = new WeakMap<SqliteDatabase, LockStatements>();
/**
 * Until when (performance.now()) connections to each file take the lock by the short-step loop. Per file, not per
 * connection: a server's connection that writes now and then learns from its busier sibling that workers write.
 */
const contendedUntil = new Map<string, number>();
/** How long one sign of another writer keeps a file in contended mode. */
const CONTENDED_MS = 30_000;
/** A BEGIN slower than this waited in SQLite's busy handler (whose first sleep is 1 ms). */
const UNCONTENDED_BEGIN_MS = 0.5;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** First and longest pause between attempts to take the lock (ms); Linux rounds short timed waits up to ~0.1 ms. */
const FIRST_PAUSE_MS = 0.05;
const MAX_PAUSE_MS = 1;

function lockStatements(db: SqliteDatabase): LockStatements {
  let found = statements.get(db);
  if (found === undefined) {
    found = {
      begin: db.prepare("BEGIN IMMEDIATE"),
      commit: db.prepare("COMMIT"),
      rollback: db.prepare("ROLLBACK"),
      dataVersion: db.prepare("PRAGMA data_version").pluck(),
    };
    statements.set(db, found);
  }
  return found;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** BEGIN IMMEDIATE: at once while the connection meets no other writer, else by {@link beginContended}. */
function begin(db: SqliteDatabase, st: LockStatements): void {
  const now = performance.now();
  if (now < (contendedUntil.get(db.name) ?? 0)) return beginContended(db, st);
  try {
    st.begin.run();
  } catch (error) {
    // Busy: the whole busy timeout went by in SQLite's handler, as the loop's would have.
    if (isBusy(error)) contendedUntil.set(db.name, performance.now() + CONTENDED_MS);
    throw error;
  }
  const slow = performance.now() - now > UNCONTENDED_BEGIN_MS;
  if (othersCommitted(st) && slow) contendedUntil.set(db.name, performance.now() + CONTENDED_MS);
}

/**
 * Whether another connection committed since this one's last write transaction (true before its first), read
 * inside the transaction just begun (no lock of its own, a fraction of a microsecond). A BEGIN that waited for
 * another writer finds that writer's commit; a slow BEGIN without one was descheduled on a loaded machine, and
 * taking it for contention cost two execs per transaction for 30 s (~20 µs of a 3-node graph's ~2.9 ms per step).
 */
function othersCommitted(st: LockStatements): boolean {
  const version = st.dataVersion.get();
  const changed = st.lastDataVersion === undefined || st.lastDataVersion !== version;
  st.lastDataVersion = version;
  return changed;
}

/** BEGIN IMMEDIATE, retried with short sleeps while another connection holds the write lock, up to its busy timeout. */
function beginContended(db: SqliteDatabase, st: LockStatements): void {
  // The connection's own busy timeout (whatever its owner set last) stays the limit, and is put back after.
  const timeoutMs = busyTimeoutOf(db);
  setBusyTimeoutQuietly(db, 0);
  try {
    const deadline = performance.now() + timeoutMs;
    let pause = FIRST_PAUSE_MS;
    for (;;) {
      try {
        st.begin.run();
        othersCommitted(st);
        return;
      } catch (error) {
        if (!isBusy(error) || performance.now() >= deadline) throw error;
        // Still contended: stay in this mode.
        contendedUntil.set(db.name, performance.now() + CONTENDED_MS);
      }
      // A synchronous sleep: callers are synchronous (checkpoint writes, run transitions) and hold no other lock.
      Atomics.wait(sleepCell, 0, 0, pause);
      pause = Math.min(MAX_PAUSE_MS, pause * 2);
    }
  } finally {
    setBusyTimeoutQuietly(db, timeoutMs);
  }
}

/**
 * `fn` wrapped like better-sqlite3's `db.transaction(fn).immediate`: one BEGIN IMMEDIATE … COMMIT
 * (ROLLBACK when it throws), or a savepoint when called inside another transaction; see the module doc for the lock wait.
 */
export function immediateTransaction<A extends unknown[], R>(db: SqliteDatabase, fn: (...args: A) => R): (...args: A) => R {
  let nested: ((...args: A) => R) | undefined;
  return (...args: A): R => {
    if (db.inTransaction) return (nested ??= db.transaction(fn))(...args);
    const st = lockStatements(db);
    begin(db, st);
    let result: R;
    try {
      result = fn(...args);
      if (typeof (result as { then?: unknown } | null)?.then === "function") throw new TypeError("a transaction function must not return a promise");
      st.commit.run();
    } catch (error) {
      // A failed COMMIT may already have ended the transaction; SQLite's own errors may have too.
      if (db.inTransaction) st.rollback.run();
      throw error;
    }
    return result;
  };
}
