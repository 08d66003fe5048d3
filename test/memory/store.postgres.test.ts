// The memory store conformance suite on PostgreSQL (a fresh schema per test, other stores on their own pools),
// and what only PostgreSQL has: the JSONB layout, statements per operation, input it cannot store.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase, readPostgresVersion } from "../../src/db/postgres/index.js";
import { PostgresStore } from "../../src/memory/postgres-store.js";
import { useTestSchema } from "../helpers/postgres.js";
import { describeStoreConformance } from "./conformance/store.js";

const schema = useTestSchema(import.meta.url);
const connect = (url: string) => new PostgresDatabase(parseDatabaseTarget(url, {}) as PostgresTarget, { maxConnections: 2 });

describeStoreConformance("PostgresStore", async (options) => {
  const url = schema.fresh().url;
  const dbs = [connect(url)];
  const store = await PostgresStore.open(dbs[0]!, options);
  return {
    store,
    openAnother: async (more) => {
      dbs.push(connect(url));
      return PostgresStore.open(dbs.at(-1)!, more);
    },
    close: async () => {
      for (const db of dbs) await db.close();
    },
  };
});

describe("PostgresStore on PostgreSQL", () => {
  let db: PostgresDatabase;
  let store: PostgresStore;
  let statements: string[];
  beforeEach(async () => {
    db = connect(schema.fresh().url);
    store = await PostgresStore.open(db, { now: () => 1_000_000 });
    statements = [];
    const query = db.query.bind(db);
    db.query = ((text: string, values?: unknown[]) => {
      statements.push(text);
      return query(text, values);
    }) as typeof db.query;
  });
  afterEach(() => db.close());

  it("keeps its items in store_items (JSONB value, text[] namespace) under the memory module's schema version", async () => {
    await store.put(["users", "a"], "prefs", { language: "Chinese" });
    expect(await readPostgresVersion(db, "memory")).toBe(1);
    const { rows } = await db.query("SELECT ns, ns_path, value, jsonb_typeof(value) AS type FROM store_items");
    expect(rows).toEqual([{ ns: ["users", "a"], ns_path: "users.a.", value: { language: "Chinese" }, type: "object" }]);
  });

  it("runs a single get, put, search or listing as one statement, and compiles filters to JSONB operators", async () => {
    await store.put(["d"], "a", { n: 1 });
    await store.get(["d"], "a");
    await store.search(["d"], { filter: { n: { $gt: 0 } }, query: "n" });
    await store.listNamespaces();
    expect(statements).toHaveLength(4);
    expect(statements[2]).toContain("jsonb_typeof(value -> $");
  });

  it("refuses a schema whose memory tables are newer than this code", async () => {
    await db.query("UPDATE agentrt_schema SET version = 99 WHERE module = 'memory'");
    const again = new PostgresStore(db);
    await expect(again.get(["a"], "k")).rejects.toMatchObject({ code: "DB_SCHEMA_TOO_NEW" });
  });

  it("refuses what PostgreSQL cannot store (NUL) with BAD_INPUT and keeps the batch's other writes out", async () => {
    const ops = [
      { namespace: ["n"], key: "ok", value: { v: 1 } },
      { namespace: ["n"], key: "bad", value: { v: "a\u0000b" } },
    ];
    await expect(store.batch(ops)).rejects.toMatchObject({ code: "BAD_INPUT" });
    await expect(store.get(["n"], "k\u0000")).rejects.toMatchObject({ code: "BAD_INPUT" });
    expect(await store.get(["n"], "ok")).toBeNull();
  });

  it("many stores writing and refreshing the same keys at once lose nothing", async () => {
    const url = `${schema.url.split("?")[0]}?schema=${db.schema}`;
    const others = Array.from({ length: 4 }, () => connect(url));
    try {
      const stores = await Promise.all(others.map((o) => PostgresStore.open(o, { now: () => 1_000_000 })));
      await Promise.all(
        stores.flatMap((s, w) => Array.from({ length: 10 }, (_, i) => s.put(["c", `k${i % 3}`], `w${w}-${i}`, { w, i }, undefined, { ttlMs: 60_000 }))),
      );
      await Promise.all(stores.map((s) => s.search(["c"], { limit: 100 })));
      expect(await store.search(["c"], { limit: 100 })).toHaveLength(40);
    } finally {
      await Promise.all(others.map((o) => o.close()));
    }
  });
});
