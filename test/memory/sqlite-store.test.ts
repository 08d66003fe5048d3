import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, readVersion, type SqliteDatabase } from "../../src/db/index.js";
import { SqliteStore } from "../../src/memory/sqlite-store.js";
import { storeSpec } from "./store-spec.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-memory-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

storeSpec("InMemoryStore (reference)", () => ({ store: new InMemoryStore(), dispose: () => undefined }));
storeSpec("SqliteStore on a shared connection", () => {
  const db = openDatabase(join(dir, "run.db"));
  return { store: new SqliteStore(db), dispose: () => db.close() };
});
storeSpec("SqliteStore opened from a path", () => {
  const store = new SqliteStore(join(dir, "own.db"));
  return { store, dispose: () => store.close() };
});

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

  it("equality is typed: a string never equals a number or a boolean", async () => {
    await store.put(["t"], "num", { v: 1 });
    await store.put(["t"], "str", { v: "1" });
    await store.put(["t"], "bool", { v: true });
    await store.put(["t"], "nul", { v: null });
    await store.put(["t"], "obj", { v: { a: 1 } });
    const keys = async (filter: Record<string, unknown>) => (await store.search(["t"], { filter })).map((i) => i.key).sort();
    expect(await keys({ v: 1 })).toEqual(["num"]);
    expect(await keys({ v: "1" })).toEqual(["str"]);
    expect(await keys({ v: true })).toEqual(["bool"]);
    expect(await keys({ v: null })).toEqual(["nul"]);
    expect(await keys({ v: { a: 1 } })).toEqual(["obj"]);
    expect(await keys({ v: { $in: [1, true] } })).toEqual(["bool", "num"]);
  });

  it("compares strings lexicographically, so ISO dates range-filter", async () => {
    await store.put(["e"], "jan", { at: "2026-01-15" });
    await store.put(["e"], "mar", { at: "2026-03-01" });
    await store.put(["e"], "num", { at: 20260201 });
    const found = await store.search(["e"], { filter: { at: { $gte: "2026-02-01" } } });
    expect(found.map((i) => i.key)).toEqual(["mar"]);
  });

  it("refuses a malformed filter with BAD_INPUT", async () => {
    await expect(store.search(["e"], { filter: { a: { $gt: [1] } } })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(store.search(["e"], { filter: { a: { $in: "x" } } })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(store.search(["e"], { filter: { "": 1 } })).rejects.toMatchObject({ code: "BAD_INPUT" });
    // A quote or backslash in a field name is escaped into the JSON path, not refused.
    await store.put(["e"], "odd", { 'a"b': 1 });
    expect((await store.search(["e"], { filter: { 'a"b': 1 } })).map((i) => i.key)).toEqual(["odd"]);
  });

  it("ranks a lexical query by the share of terms found, honouring index fields", async () => {
    await store.put(["m"], "lang", { text: "User wants answers in Chinese" });
    await store.put(["m"], "team", { text: "User's team is payments" });
    await store.put(["m"], "hidden", { text: "Chinese payments" }, false);
    await store.put(["m"], "title", { title: "payments runbook", body: "Chinese" }, ["title"]);
    const found = await store.search(["m"], { query: "payments team" });
    expect(found.map((i) => [i.key, i.score])).toEqual([
      ["team", 1],
      ["title", 0.5],
    ]);
    expect((await store.search(["m"], { query: "中文 Chinese" })).map((i) => i.key)).toEqual(["lang"]);
    await store.put(["m"], "zh", { text: "请用中文回答" });
    expect((await store.search(["m"], { query: "中文" })).map((i) => i.key)).toEqual(["zh"]);
  });

  it("orders plain search newest first", async () => {
    await store.put(["o"], "old", { v: 1 });
    now += 10;
    await store.put(["o"], "new", { v: 2 });
    expect((await store.search(["o"])).map((i) => i.key)).toEqual(["new", "old"]);
  });

  describe("TTL", () => {
    it("expires items after their time to live; reads refresh it", async () => {
      await store.put(["s"], "k", { v: 1 }, undefined, { ttlMs: 1000 });
      now += 900;
      expect(await store.get(["s"], "k")).not.toBeNull();
      now += 900;
      expect((await store.search(["s"])).map((i) => i.key)).toEqual(["k"]);
      now += 999;
      expect(await store.listNamespaces()).toEqual([["s"]]);
      now += 1;
      expect(await store.get(["s"], "k")).toBeNull();
      expect(await store.search(["s"])).toEqual([]);
      expect(await store.listNamespaces()).toEqual([]);
      expect(store.sweepExpired()).toBe(1);
    });

    it("applies the default TTL, and can be kept from refreshing on read", async () => {
      const fixed = new SqliteStore(db, { now: () => now, defaultTtlMs: 1000, refreshOnRead: false });
      await fixed.put(["s"], "k", { v: 1 });
      await fixed.put(["s"], "forever", { v: 1 }, undefined, { ttlMs: null });
      now += 900;
      expect(await fixed.get(["s"], "k")).not.toBeNull();
      now += 100;
      expect(await fixed.get(["s"], "k")).toBeNull();
      expect(await fixed.get(["s"], "forever")).not.toBeNull();
    });

    it("re-putting an expired key starts a new item", async () => {
      await store.put(["s"], "k", { v: 1 }, undefined, { ttlMs: 10 });
      now += 50;
      await store.put(["s"], "k", { v: 2 });
      const item = await store.get(["s"], "k");
      expect(item?.createdAt.getTime()).toBe(now);
      expect(item?.value).toEqual({ v: 2 });
    });

    it("refuses a non-positive TTL", async () => {
      await expect(store.put(["s"], "k", { v: 1 }, undefined, { ttlMs: 0 })).rejects.toMatchObject({ code: "BAD_INPUT" });
    });
  });

  it("two connections to one file see each other's writes", async () => {
    const path = join(dir, "shared.db");
    const a = new SqliteStore(path);
    const b = new SqliteStore(path);
    try {
      await a.put(["users", "a"], "prefs", { team: "payments" });
      expect((await b.get(["users", "a"], "prefs"))?.value).toEqual({ team: "payments" });
      await b.delete(["users", "a"], "prefs");
      expect(await a.get(["users", "a"], "prefs")).toBeNull();
    } finally {
      a.close();
      b.close();
    }
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
