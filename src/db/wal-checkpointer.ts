/**
 * WAL checkpoints off the commit path. SQLite copies the WAL back into the
 * database file (a checkpoint: write up to 1,000 pages, fsync the WAL and the
 * file) inside the COMMIT that crosses `wal_autocheckpoint`: that COMMIT
 * stalls its event loop for 10–150 ms on a busy disk, most of the commit time
 * of 32 graphs writing through one saver. A connection whose WAL reached
 * {@link START_FRAMES} frames gets a worker thread with its own connection
 * that runs PASSIVE checkpoints (they never wait for or block a reader or the
 * writer) once {@link PASS_FRAMES} frames are not yet copied back.
 *
 * A PASSIVE pass cannot restart the WAL while the writer appends, so the
 * writer's own auto-checkpoint stays on as a backstop at {@link BACKSTOP_FACTOR}
 * times its length (2,000 frames by default; back to the usual length if the
 * worker ends): the WAL restarts under writes that never pause, and finds
 * little left to copy then. Should writes outrun a pass that holds the
 * checkpoint lock the backstop needs, commits wait for that pass at twice the
 * backstop's length (4,000 frames, 16 MB): the WAL stays bounded.
 *
 * `synchronous` and commit durability are untouched, and a checkpoint is not
 * a commit (`PRAGMA data_version` does not move). With `synchronous = NORMAL`
 * a power loss can undo the commits not yet synced: the worker syncs the WAL
 * at each pass, every 250 frames while it keeps up, at worst at that bound.
 * @module
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { endianness } from "node:os";
import { Worker } from "node:worker_threads";
import type { SqliteDatabase } from "./open-database.js";

/** The worker checkpoints once this many WAL frames are not yet in the database file. */
export const PASS_FRAMES = 250;
/**
 * While the worker runs, SQLite's own auto-checkpoint on the writer's connection waits for this many times its
 * usual WAL length (2,000 frames, 8 MB, by default): a backstop that restarts the WAL under writes that never
 * pause (the worker's PASSIVE passes cannot, as a writer appends meanwhile) and takes over if the worker lags.
 */
export const BACKSTOP_FACTOR = 2;
/** A connection gets a worker once its WAL file is this many frames long: one-shot commands never start a thread. */
export const START_FRAMES = PASS_FRAMES;

/** Cells of the control array shared with the worker. */
const STATE = 0;
const PASSES = 1;
const FAILED = 2;
/** 1 while the worker runs a pass (holding SQLite's checkpoint lock). */
const PASSING = 3;
/** STATE values. */
const STARTING = 0;
const RUNNING = 1;
const STOPPING = 2;
const DONE = 3;
/** How long `close()` waits at most for the worker's connection to close (a pass in flight finishes first). */
const STOP_TIMEOUT_MS = 10_000;

/**
 * The worker, as CommonJS source run with `eval` (it needs no TypeScript loader in tests or benches). It reads the
 * WAL index header from the `-shm` file (format: https://www.sqlite.org/walformat.html §2.2, native byte order):
 * the header's version (offset 0), its per-transaction change counter (8), whether it is set up (12), the WAL's last
 * frame (16) and, in the checkpoint info after both header copies, how many frames are already copied back (96).
 * Reading it costs one pread, where asking SQLite would run a checkpoint. It polls every 2 ms while commits come,
 * backing off to 100 ms when none do.
 */
const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const fs = require("node:fs");
const ctl = new Int32Array(workerData.control);
const [STATE, PASSES, FAILED, PASSING, RUNNING, DONE, STARTING] = workerData.cells;
const read = workerData.littleEndian ? "readUInt32LE" : "readUInt32BE";
let db, shm;
try {
  if (Atomics.compareExchange(ctl, STATE, STARTING, RUNNING) === STARTING) {
    const Database = require(workerData.driver);
    db = new Database(workerData.file, { fileMustExist: true });
    shm = fs.openSync(workerData.file + "-shm", "r");
    const header = Buffer.alloc(100);
    let wait = 2, lastChange = -1;
    while (Atomics.load(ctl, STATE) === RUNNING) {
      Atomics.wait(ctl, STATE, RUNNING, wait);
      if (Atomics.load(ctl, STATE) !== RUNNING) break;
      const valid = fs.readSync(shm, header, 0, 100, 0) === 100 && header[read](0) === 3007000 && header[12] === 1;
      const change = valid ? header[read](8) : lastChange;
      if (change === lastChange) {
        wait = Math.min(100, wait * 2);
        continue;
      }
      wait = 2;
      lastChange = change;
      const last = header[read](16), copied = header[read](96);
      if ((copied > last ? last : last - copied) >= workerData.passFrames) {
        Atomics.store(ctl, PASSING, 1);
        try {
          db.pragma("wal_checkpoint(PASSIVE)");
        } finally {
          Atomics.store(ctl, PASSING, 0);
          Atomics.notify(ctl, PASSING);
        }
        Atomics.add(ctl, PASSES, 1);
      }
    }
  }
} catch {
  // The writer's own auto-checkpoint goes on as before.
  Atomics.store(ctl, FAILED, 1);
} finally {
  try { if (shm !== undefined) fs.closeSync(shm); if (db !== undefined) db.close(); } catch {}
  Atomics.store(ctl, STATE, DONE);
  Atomics.notify(ctl, STATE);
}
`;

/** A connection's checkpoint worker. */
interface Checkpointer {
  control: Int32Array;
  /** The `-shm` file, open for reading the WAL's length. */
  shm: number;
  /** WAL frames at which commits wait for the worker's pass and checkpoint themselves. */
  limit: number;
}

const littleEndian = endianness() === "LE";
const headerBuffer = Buffer.alloc(20);

const checkpointers = new WeakMap<SqliteDatabase, Checkpointer>();
/** Connections that never get a worker: it failed to start, or {@link keepCheckpointsOnCommits} asked so. */
const withoutWorker = new WeakSet<SqliteDatabase>();
/**
 * Connections agentrt opened itself (openDatabase), the only ones commits start a worker on: a connection a caller
 * passed in (to SqliteSaver, say) keeps its own `wal_autocheckpoint` and `close`, which the worker would change.
 */
const ownConnections = new WeakSet<SqliteDatabase>();

/** Lets {@link afterCommits} start a worker on `db`, a connection agentrt opened and owns. */
export function allowWalCheckpointer(db: SqliteDatabase): void {
  ownConnections.add(db);
}
let driverPath: string | undefined;

/**
 * Starts the checkpoint worker of `db` (once; a no-op for in-memory and read-only connections) and makes
 * `db.close()` stop it first, so the writer's connection is the file's last again and its close still
 * checkpoints and removes the WAL. Write transactions start it through {@link afterCommits}; a bench may
 * start it on a connection of its own.
 */
export function startWalCheckpointer(db: SqliteDatabase): void {
  if (db.memory || db.readonly || !db.open || checkpointers.has(db) || withoutWorker.has(db)) return;
  try {
    spawn(db);
  } catch {
    // No thread to be had: the writer's own auto-checkpoint goes on, as before.
    withoutWorker.add(db);
  }
}

/**
 * Called by every 16th write transaction of a connection: starts its worker (on a connection agentrt opened) once its WAL has reached
 * {@link START_FRAMES} frames; then, if the WAL has reached twice the backstop's length (writes faster than a pass
 * can copy them back, while a pass holds the checkpoint lock that the backstop needs), waits for the worker's pass
 * and checkpoints here, so the WAL stays within that limit (plus 16 transactions).
 */
export function afterCommits(db: SqliteDatabase): void {
  const found = checkpointers.get(db);
  if (found !== undefined) return holdWalLimit(db, found);
  if (db.memory || db.readonly || !db.open || withoutWorker.has(db) || !ownConnections.has(db)) return;
  let bytes: number;
  try {
    bytes = statSync(`${db.name}-wal`).size;
  } catch {
    return;
  }
  // 32-byte WAL header, then frames of a 24-byte header and one page.
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  if (bytes >= 32 + START_FRAMES * (pageSize + 24)) startWalCheckpointer(db);
}

function holdWalLimit(db: SqliteDatabase, checkpointer: Checkpointer): void {
  const { control, shm, limit } = checkpointer;
  if (Atomics.load(control, STATE) !== RUNNING) return;
  const header = walIndexHeader(shm);
  if (header === undefined || header.last < limit) return;
  // The worker may start its next pass between its last one ending and this checkpoint, which then finds the
  // checkpoint lock taken (busy) and copies nothing: wait for that pass too, until one here gets the lock.
  const deadline = performance.now() + STOP_TIMEOUT_MS;
  for (;;) {
    Atomics.wait(control, PASSING, 1, Math.max(0, deadline - performance.now()));
    const [result] = db.pragma("wal_checkpoint(PASSIVE)") as { busy: number }[];
    if (result?.busy !== 1 || performance.now() >= deadline || Atomics.load(control, STATE) !== RUNNING) return;
  }
}

/** The WAL index header's last frame (see WORKER_SOURCE), or undefined when it cannot be read. */
function walIndexHeader(fd: number): { last: number } | undefined {
  try {
    if (readSync(fd, headerBuffer, 0, 20, 0) < 20) return undefined;
  } catch {
    return undefined;
  }
  const read = (offset: number) => (littleEndian ? headerBuffer.readUInt32LE(offset) : headerBuffer.readUInt32BE(offset));
  return read(0) === 3007000 && headerBuffer[12] === 1 ? { last: read(16) } : undefined;
}

function spawn(db: SqliteDatabase): void {
  // 0: the owner runs its checkpoints itself.
  const autocheckpoint = Number(db.pragma("wal_autocheckpoint", { simple: true }));
  if (!(autocheckpoint > 0)) {
    withoutWorker.add(db);
    return;
  }
  const shm = openSync(`${db.name}-shm`, "r");
  const control = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  let worker: Worker;
  try {
    worker = newWorker(db, control);
  } catch (error) {
    closeSync(shm);
    throw error;
  }
  // A worker that cannot start leaves the writer's own auto-checkpoint doing the work, as before.
  worker.on("error", () => Atomics.store(control, FAILED, 1));
  worker.unref();
  checkpointers.set(db, { control, shm, limit: 2 * BACKSTOP_FACTOR * autocheckpoint });
  db.pragma(`wal_autocheckpoint = ${autocheckpoint * BACKSTOP_FACTOR}`);
  // A worker gone (failed, terminated) while the connection is open: SQLite's own checkpoints as before.
  worker.on("exit", () => {
    Atomics.store(control, STATE, DONE);
    if (db.open) db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  });
  const close = db.close.bind(db);
  db.close = () => {
    stop(control);
    closeSync(shm);
    return close();
  };
}

function newWorker(db: SqliteDatabase, control: Int32Array): Worker {
  driverPath ??= createRequire(import.meta.url).resolve("better-sqlite3");
  return new Worker(WORKER_SOURCE, {
    eval: true,
    // Not the parent's loaders (tsx in tests and benches): the source is plain JavaScript.
    execArgv: [],
    workerData: {
      file: db.name,
      control: control.buffer,
      driver: driverPath,
      passFrames: PASS_FRAMES,
      littleEndian,
      cells: [STATE, PASSES, FAILED, PASSING, RUNNING, DONE, STARTING],
    },
  });
}

/** Leaves `db`'s checkpoints on its commits, as SQLite runs them (benches compare both ways); before its worker started. */
export function keepCheckpointsOnCommits(db: SqliteDatabase): void {
  withoutWorker.add(db);
}

/** Asks the worker to finish and waits until its connection is closed (not at all if it never opened one). */
function stop(control: Int32Array): void {
  if (Atomics.compareExchange(control, STATE, STARTING, DONE) === STARTING) return;
  if (Atomics.compareExchange(control, STATE, RUNNING, STOPPING) === RUNNING) Atomics.notify(control, STATE);
  const deadline = performance.now() + STOP_TIMEOUT_MS;
  for (let state = Atomics.load(control, STATE); state !== DONE; state = Atomics.load(control, STATE)) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    Atomics.wait(control, STATE, state, left);
  }
}

/** What the worker of `db` did so far (undefined before it started): checkpoint passes run, and whether it failed. */
export function walCheckpointerStats(db: SqliteDatabase): { passes: number; failed: boolean } | undefined {
  const found = checkpointers.get(db);
  if (found === undefined) return undefined;
  return { passes: Atomics.load(found.control, PASSES), failed: Atomics.load(found.control, FAILED) === 1 };
}
