import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { immediateTransaction, openDatabase, type SqliteDatabase } from "../../src/db/index.js";

const tempDb = () => join(mkdtempSync(join(tmpdir(), "agentrt-immediate-")), "a.db");
const sqlitePath = createRequire(import.meta.url).resolve("better-sqlite3");

/**
 * Another connection, on its own thread, that takes the write lock and writes row "other": it sets
 * flags[0] once it holds the lock and commits `holdMs` later, or when flags[1] is set (holdMs < 0).
 */
function lockHolder(path: string, holdMs: number): { flags: Int32Array; done: Promise<void> } {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(
    `const { workerData: { sqlitePath, path, holdMs, flags } } = require("node:worker_threads");
     const db = new (require(sqlitePath))(path);
     db.exec("BEGIN IMMEDIATE; INSERT INTO t (v) VALUES ('other')");
     Atomics.store(flags, 0, 1); Atomics.notify(flags, 0);
     if (holdMs >= 0) Atomics.wait(flags, 1, 0, holdMs); else Atomics.wait(flags, 1, 0);
     db.exec("COMMIT"); db.close();`,
    { eval: true, workerData: { sqlitePath, path, holdMs, flags } },
  );
  const done = new Promise<void>((resolve, reject) => {
    worker.once("error", reject);
    worker.once("exit", () => resolve());
  });
  Atomics.wait(flags, 0, 0, 10_000);
  return { flags, done };
}

const open: SqliteDatabase[] = [];
function db(path: string, busyTimeoutMs?: number): SqliteDatabase {
  const d = openDatabase(path, { busyTimeoutMs });
  d.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
  open.push(d);
  return d;
}
const values = (d: SqliteDatabase) => (d.prepare("SELECT v FROM t ORDER BY id").all() as { v: string }[]).map((r) => r.v);

afterEach(() => {
  for (const d of open.splice(0)) d.close();
});

/** Runs `fn` with every clock reading 5 ms after the last: a BEGIN looks slow, as when the process was preempted. */
function slowly(fn: () => unknown): void {
  let t = performance.now();
  const clock = vi.spyOn(performance, "now").mockImplementation(() => (t += 5));
  try {
    fn();
  } finally {
    clock.mockRestore();
  }
}

/** The SQL `fn` ran through `exec` (the busy timeout switched off and back, in contended mode). */
function execsDuring(fn: () => unknown): unknown[] {
  const exec = vi.spyOn(Database.prototype, "exec");
  try {
    fn();
    return exec.mock.calls.map(([sql]) => sql);
  } finally {
    exec.mockRestore();
  }
}

describe("immediateTransaction", () => {
  it("commits the function's writes and returns its value", () => {
    const d = db(tempDb());
    const insert = immediateTransaction(d, (v: string) => d.prepare("INSERT INTO t (v) VALUES (?)").run(v).lastInsertRowid);
    expect(insert("a")).toBe(1);
    expect(d.inTransaction).toBe(false);
    expect(values(d)).toEqual(["a"]);
  });

  it("rolls back and rethrows when the function throws", () => {
    const d = db(tempDb());
    const failing = immediateTransaction(d, () => {
      d.prepare("INSERT INTO t (v) VALUES ('lost')").run();
      throw new Error("boom");
    });
    expect(() => failing()).toThrow("boom");
    expect(d.inTransaction).toBe(false);
    expect(values(d)).toEqual([]);
  });

  it("is a savepoint inside another transaction: an inner failure undoes only the inner writes", () => {
    const d = db(tempDb());
    const inner = immediateTransaction(d, () => {
      d.prepare("INSERT INTO t (v) VALUES ('inner')").run();
      throw new Error("inner");
    });
    const outer = immediateTransaction(d, () => {
      d.prepare("INSERT INTO t (v) VALUES ('outer')").run();
      expect(() => inner()).toThrow("inner");
    });
    outer();
    expect(values(d)).toEqual(["outer"]);
  });

  it("keeps the busy timeout the connection has now, not the one it had at its first transaction", () => {
    const d = db(tempDb(), 5000);
    immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('a')").run())();
    d.pragma("busy_timeout = 100");
    immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('b')").run())();
    expect(d.pragma("busy_timeout", { simple: true })).toBe(100);
  });

  it("keeps a busy timeout set with exec, too", () => {
    const d = db(tempDb(), 5000);
    immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('a')").run())();
    d.exec("PRAGMA busy_timeout = 250");
    immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('b')").run())();
    expect(d.pragma("busy_timeout", { simple: true })).toBe(250);
  });

  it("reads the busy timeout of a connection openDatabase opened once, not around every transaction", () => {
    const d = db(tempDb(), 5000);
    const insert = immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('a')").run());
    insert();
    const read = vi.spyOn(Database.prototype, "pragma");
    try {
      insert();
      insert();
      expect(read).not.toHaveBeenCalled();
    } finally {
      read.mockRestore();
    }
    expect(d.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("refuses a function that returns a thenable, leaving nothing written", () => {
    const d = db(tempDb());
    const thenable = immediateTransaction(d, () => ({ then: () => d.prepare("INSERT INTO t (v) VALUES ('x')").run() }));
    d.prepare("INSERT INTO t (v) VALUES ('kept')").run();
    expect(() => thenable()).toThrow(/must not return a promise/);
    expect(values(d)).toEqual(["kept"]);
  });

  it("refuses a function that returns a promise, leaving nothing written", () => {
    const d = db(tempDb());
    const asyncFn = immediateTransaction(d, async () => d.prepare("INSERT INTO t (v) VALUES ('x')").run());
    expect(() => asyncFn()).toThrow(/must not return a promise/);
    expect(values(d)).toEqual([]);
  });

  it("waits while another connection holds the write lock, then writes after it", async () => {
    const path = tempDb();
    const d = db(path, 5000);
    const holder = lockHolder(path, 50);
    immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('mine')").run())();
    await holder.done;
    expect(values(d)).toEqual(["other", "mine"]);
    // The connection's own busy timeout is back for every other statement.
    expect(d.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("fails with SQLITE_BUSY once the connection's busy timeout has passed, changing nothing", async () => {
    const path = tempDb();
    const d = db(path, 30);
    const holder = lockHolder(path, -1);
    let error: unknown;
    try {
      immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('mine')").run())();
    } catch (e) {
      error = e;
    }
    Atomics.store(holder.flags, 1, 1);
    Atomics.notify(holder.flags, 1);
    await holder.done;
    expect((error as { code?: string }).code).toBe("SQLITE_BUSY");
    expect(d.inTransaction).toBe(false);
    expect(d.pragma("busy_timeout", { simple: true })).toBe(30);
    expect(values(d)).toEqual(["other"]);
  });

  it("switches no busy timeout on a connection that has met no other writer", () => {
    const d = db(tempDb(), 5000);
    const insert = immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('a')").run());
    insert();
    const exec = vi.spyOn(Database.prototype, "exec");
    try {
      insert();
      insert();
      expect(exec).not.toHaveBeenCalled();
    } finally {
      exec.mockRestore();
    }
  });

  it("stays off short steps after a slow BEGIN when no other connection has committed (a stall, not a wait)", () => {
    const d = db(tempDb(), 5000);
    const insert = immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('a')").run());
    insert();
    slowly(insert);
    expect(execsDuring(insert)).toEqual([]);
  });

  it("takes short steps after a slow BEGIN when another connection has committed meanwhile", () => {
    const path = tempDb();
    const d = db(path, 5000);
    const insert = immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('a')").run());
    insert();
    db(path).prepare("INSERT INTO t (v) VALUES ('other')").run();
    slowly(insert);
    expect(execsDuring(insert)).toEqual(["PRAGMA busy_timeout = 0", "PRAGMA busy_timeout = 5000"]);
  });

  it("takes the lock in short steps for a while after a BEGIN found it held", async () => {
    const path = tempDb();
    const d = db(path, 5000);
    const holder = lockHolder(path, 20);
    immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('mine')").run())();
    await holder.done;
    const exec = vi.spyOn(Database.prototype, "exec");
    try {
      immediateTransaction(d, () => d.prepare("INSERT INTO t (v) VALUES ('next')").run())();
      // Contended mode: the timeout is switched off around BEGIN and back after it.
      expect(exec.mock.calls.map(([sql]) => sql)).toEqual(["PRAGMA busy_timeout = 0", "PRAGMA busy_timeout = 5000"]);
    } finally {
      exec.mockRestore();
    }
    expect(values(d)).toEqual(["other", "mine", "next"]);
  });

  it("takes the lock in short steps after waiting for another writer's commit, on a connection that wrote before", async () => {
    const path = tempDb();
    const d = db(path, 5000);
    const insert = immediateTransaction(d, (v: string) => d.prepare("INSERT INTO t (v) VALUES (?)").run(v));
    insert("first");
    const holder = lockHolder(path, 20);
    insert("mine");
    await holder.done;
    const exec = vi.spyOn(Database.prototype, "exec");
    try {
      insert("next");
      expect(exec.mock.calls.map(([sql]) => sql)).toEqual(["PRAGMA busy_timeout = 0", "PRAGMA busy_timeout = 5000"]);
    } finally {
      exec.mockRestore();
    }
    expect(values(d)).toEqual(["first", "other", "mine", "next"]);
  });
});
