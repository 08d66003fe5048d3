import { chownSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { migrate, openDatabase, readVersion } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";

const tempDir = () => mkdtempSync(join(tmpdir(), "agentrt-db-"));

describe("openDatabase", () => {
  it("opens a file in WAL mode with a busy timeout", () => {
    const db = openDatabase(join(tempDir(), "a.db"), { busyTimeoutMs: 1234 });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("busy_timeout", { simple: true })).toBe(1234);
    db.close();
  });

  it("opens :memory:", () => {
    const db = openDatabase(":memory:");
    expect(db.prepare("select 1 as one").get()).toEqual({ one: 1 });
    db.close();
  });

  it("names the file when its directory is missing", () => {
    const path = join(tempDir(), "missing", "a.db");
    expect(() => openDatabase(path)).toThrow(StorageError);
    expect(() => openDatabase(path)).toThrow(path);
  });

  it("refuses a file that is not SQLite", () => {
    const path = join(tempDir(), "junk.db");
    writeFileSync(path, "this is not a database, just some text that is long enough to have a header ".repeat(20));
    const error = (() => {
      try {
        openDatabase(path);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe("DB_CORRUPT");
    expect((error as StorageError).message).toContain(path);
  });

  it("refuses to migrate a file opened read-only, naming it", () => {
    const path = join(tempDir(), "ro.db");
    openDatabase(path).close();
    const db = openDatabase(path, { readonly: true });
    expect(() => migrate(db, { module: "x", tables: [], migrations: ["CREATE TABLE x (a)"] })).toThrow(path);
    db.close();
  });

  it("with snapshot: true reads its own user's file in a writable directory in place, seeing later commits", () => {
    const path = join(tempDir(), "own.db");
    const writer = openDatabase(path);
    writer.exec("CREATE TABLE t (a); INSERT INTO t VALUES (1)");
    const db = openDatabase(path, { readonly: true, snapshot: true });
    writer.exec("INSERT INTO t VALUES (2)");
    expect(db.prepare("SELECT a FROM t").all()).toEqual([{ a: 1 }, { a: 2 }]);
    db.close();
    writer.close();
  });

  it("reads another user's closed WAL file as an in-memory snapshot (snapshot: true): nothing created beside it, errors name the file", (ctx) => {
    // Only root can hand a file to another user; a -shm made by root beside it is what the snapshot avoids.
    if (process.getuid?.() !== 0) ctx.skip();
    const dir = tempDir();
    const path = join(dir, "snap.db");
    const writer = openDatabase(path);
    writer.exec("CREATE TABLE t (a); INSERT INTO t VALUES (1)");
    writer.close();
    chownSync(path, 4242, 4242);
    expect(readdirSync(dir)).toEqual(["snap.db"]);
    const db = openDatabase(path, { readonly: true, snapshot: true });
    expect(db.prepare("SELECT a FROM t").all()).toEqual([{ a: 1 }]);
    expect(() => db.exec("INSERT INTO t VALUES (2)")).toThrow(/readonly/);
    expect(() => migrate(db, { module: "x", tables: [], migrations: ["CREATE TABLE x (a)"] })).toThrow(path);
    db.close();
    expect(readdirSync(dir)).toEqual(["snap.db"]);
  });
});

describe("migrate", () => {
  const schema = {
    module: "demo",
    tables: ["demo_items"],
    migrations: ["CREATE TABLE demo_items (id INTEGER PRIMARY KEY)", "ALTER TABLE demo_items ADD COLUMN name TEXT"],
  };

  it("applies migrations once and records the version", () => {
    const db = openDatabase(join(tempDir(), "m.db"));
    expect(migrate(db, schema)).toBe(2);
    expect(migrate(db, schema)).toBe(2);
    expect(readVersion(db, "demo")).toBe(2);
    db.prepare("INSERT INTO demo_items (name) VALUES ('x')").run();
    db.close();
  });

  it("migrates forward from an older version", () => {
    const db = openDatabase(join(tempDir(), "m.db"));
    migrate(db, { ...schema, migrations: schema.migrations.slice(0, 1) });
    expect(readVersion(db, "demo")).toBe(1);
    expect(migrate(db, schema)).toBe(2);
    db.close();
  });

  it("refuses a file written by a newer version", () => {
    const db = openDatabase(join(tempDir(), "m.db"));
    migrate(db, schema);
    expect(() => migrate(db, { ...schema, migrations: schema.migrations.slice(0, 1) })).toThrow(/newer/);
    db.close();
  });

  it("refuses a foreign table of the same name", () => {
    const db = openDatabase(join(tempDir(), "m.db"));
    db.exec("CREATE TABLE demo_items (other TEXT)");
    expect(() => migrate(db, schema)).toThrow(/foreign/);
    expect(readVersion(db, "demo")).toBe(0);
    db.close();
  });
});
