import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, readVersion, type SqliteDatabase } from "../../src/db/index.js";
import { SqliteStore } from "../../src/memory/sqlite-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-memory-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteStore", () => {
  let db: SqliteDatabase;
  let now: number;
  let store: SqliteStore;
  beforeEach(() => {
    db = openDatabase(join(dir, "agentrt.db"));
    now = 1_000_000;
    store = new SqliteStore(db, { now: () => now });
  });
  afterEach(() => db.close());

  it("keeps its items in store_items under the memory module's schema version", async () => {
    await store.put(["users", "a"], "prefs", { language: "Chinese" });
    expect(readVersion(db, "memory")).toBe(1);
    const row = db.prepare("SELECT ns, ns_path, value FROM store_items").get();
    expect(row).toEqual({ ns: '["users","a"]', ns_path: "users.a.", value: '{"language":"Chinese"}' });
  });

  it("compiles filters to SQL: the query plan reads json_extract, not JS", async () => {
    await store.put(["d"], "a", { n: 1 });
    const spy: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      spy.push(sql);
      return prepare(sql);
    });
    try {
      await store.search(["d"], { filter: { n: { $gt: 0 } } });
    } finally {
      db.prepare = prepare;
    }
    expect(spy.some((sql) => sql.includes("json_extract(value, ?) > ?"))).toBe(true);
  });

  it("refuses a file whose memory tables are newer than this code", () => {
    db.prepare("UPDATE agentrt_schema SET version = 99 WHERE module = 'memory'").run();
    expect(() => new SqliteStore(db)).toThrow(expect.objectContaining({ code: "DB_SCHEMA_TOO_NEW" }));
  });

  it("close() leaves a shared connection open", () => {
    store.close();
    expect(db.open).toBe(true);
  });
});

describe("SqliteStore on a file written by memory schema v1", () => {
  const fixture = fileURLToPath(new URL("./fixtures/memory-v1.db", import.meta.url));
  const writtenAt = Date.UTC(2026, 10, 29);

  it("reads it through a read-only connection without touching it", async () => {
    const copy = join(dir, "v1.db");
    copyFileSync(fixture, copy);
    const db = openDatabase(copy, { readonly: true });
    try {
      const store = new SqliteStore(db, { now: () => writtenAt + 1000 });
      expect((await store.get(["users", "alice", "prefs"], "language"))?.value).toEqual({ value: "Chinese" });
      expect((await store.search(["users", "alice"])).map((i) => i.key).sort()).toEqual(["language", "team"]);
      expect((await store.get(["users", "bob", "prefs"], "language"))?.value).toEqual({ value: "English" });
      const later = new SqliteStore(db, { now: () => writtenAt + 60_000 });
      expect(await later.get(["users", "bob", "prefs"], "language")).toBeNull();
      await expect(store.put(["users", "alice", "prefs"], "x", { v: 1 })).rejects.toThrow();
    } finally {
      db.close();
    }
  });

  it("opens it read-write with no migration needed", async () => {
    const copy = join(dir, "v1-rw.db");
    copyFileSync(fixture, copy);
    const store = new SqliteStore(copy);
    try {
      expect(readVersion(store.db, "memory")).toBe(1);
      await store.put(["users", "carol", "prefs"], "language", { value: "German" });
      expect(await store.listNamespaces({ maxDepth: 2 })).toEqual([
        ["users", "alice"],
        ["users", "carol"],
      ]);
    } finally {
      store.close();
    }
  });
});
