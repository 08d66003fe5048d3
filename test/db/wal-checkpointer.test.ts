import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, closeSync, readSync, statSync, writeFileSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { immediateTransaction, openDatabase, walCheckpointerStats, type SqliteDatabase } from "../../src/db/index.js";
import { BACKSTOP_FACTOR } from "../../src/db/wal-checkpointer.js";

const tempDb = () => join(mkdtempSync(join(tmpdir(), "agentrt-wal-")), "a.db");
const open: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of open.splice(0)) if (db.open) db.close();
});

function database(path: string): SqliteDatabase {
  const db = openDatabase(path);
  db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)");
  open.push(db);
  return db;
}

/** `count` write transactions of one 3 KB row each (one WAL frame or so apiece). */
function write(db: SqliteDatabase, count: number, bytes = 3000): void {
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  const once = immediateTransaction(db, (value: Buffer) => insert.run(value));
  for (let i = 0; i < count; i++) once(Buffer.alloc(bytes, i % 251));
}

/** The WAL index header's last frame and frames copied back (https://www.sqlite.org/walformat.html §2.2). */
function walIndex(path: string): { last: number; copied: number } {
  const header = Buffer.alloc(100);
  const fd = openSync(`${path}-shm`, "r");
  try {
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  const read = (offset: number) => (endianness() === "LE" ? header.readUInt32LE(offset) : header.readUInt32BE(offset));
  return { last: read(16), copied: read(96) };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("WAL checkpointer", () => {
  it("a connection whose WAL grew gets a worker that copies it back, without a checkpoint on the writer's commits", async () => {
    const path = tempDb();
    const db = database(path);
    write(db, 30);
    expect(walCheckpointerStats(db)).toBeUndefined();
    write(db, 150);
    expect(walCheckpointerStats(db)).toBeDefined();
    // The writer's own auto-checkpoint now waits for 2,000 frames: only the worker copies these ~1,200 back.
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000 * BACKSTOP_FACTOR);
    write(db, 300);
    await until(() => walIndex(path).copied > 0);
    expect(walCheckpointerStats(db)).toEqual({ passes: expect.any(Number), failed: false });
    expect(walCheckpointerStats(db)?.passes).toBeGreaterThan(0);
    expect(walIndex(path).copied).toBeGreaterThan(0);
  });

  it("its passes are not commits: PRAGMA data_version does not move (the refs memo and lock-wait mode rely on it)", async () => {
    const path = tempDb();
    const db = database(path);
    write(db, 900);
    const before = db.pragma("data_version", { simple: true });
    await until(() => (walCheckpointerStats(db)?.passes ?? 0) > 0);
    expect(walCheckpointerStats(db)?.passes).toBeGreaterThan(0);
    expect(db.pragma("data_version", { simple: true })).toBe(before);
  });

  it("close() closes the worker's connection first, so the writer's close still checkpoints and removes the WAL", () => {
    const path = tempDb();
    const db = database(path);
    write(db, 900);
    expect(walCheckpointerStats(db)).toBeDefined();
    db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(openDatabase(path).prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 900 });
  });

  it("under writes that never pause the WAL stays bounded and restarts", () => {
    const path = tempDb();
    const db = database(path);
    const frameBytes = 4096 + 24;
    let largest = 0;
    let written = 0;
    // 16 KB rows (at least 16,000 / 4,096 pages each): over 48,000 frames, twelve times the backstop's length.
    for (let round = 0; round < 250; round++) {
      write(db, 50, 16_000);
      written += (50 * 16_000) / 4096;
      largest = Math.max(largest, statSync(`${path}-wal`).size / frameBytes);
    }
    expect(written).toBeGreaterThan(10 * 1000 * BACKSTOP_FACTOR);
    // Twice the backstop's length (commits then wait for the worker's pass), plus the 16 transactions between two
    // checks of it: a 16 KB row writes at most 7 frames (4 overflow pages, its leaf, a split's parent and sibling).
    const bound = 2 * 1000 * BACKSTOP_FACTOR + 16 * 7;
    expect(largest).toBeLessThan(bound);
    expect(walIndex(path).last).toBeLessThan(bound);
  });

  it("a connection the caller opened and passed in gets no worker: its wal_autocheckpoint and close stay its own", () => {
    const db = new Database(tempDb());
    open.push(db);
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v BLOB)");
    const close = db.close;
    write(db, 900);
    expect(walCheckpointerStats(db)).toBeUndefined();
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    expect(db.close).toBe(close);
  });

  it("a connection with auto-checkpoints off (its owner checkpoints) gets no worker", () => {
    const db = database(tempDb());
    db.pragma("wal_autocheckpoint = 0");
    write(db, 900);
    expect(walCheckpointerStats(db)).toBeUndefined();
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
  });

  it("a process that exits without closing its connection is not held up by the worker", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-wal-exit-"));
    const script = join(dir, "exit.ts");
    const db = fileURLToPath(new URL("../../src/db/index.ts", import.meta.url));
    writeFileSync(
      script,
      `import { immediateTransaction, openDatabase, walCheckpointerStats } from ${JSON.stringify(db)};
       const db = openDatabase(${JSON.stringify(join(dir, "a.db"))});
       db.exec("CREATE TABLE t (v BLOB)");
       const insert = db.prepare("INSERT INTO t VALUES (?)");
       const once = immediateTransaction(db, (v: Buffer) => insert.run(v));
       for (let i = 0; i < 900; i++) once(Buffer.alloc(3000, i % 251));
       process.stdout.write(JSON.stringify(walCheckpointerStats(db)));`,
    );
    const child = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 60_000 });
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toMatchObject({ failed: false });
  });
});
