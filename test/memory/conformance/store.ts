/**
 * The behaviour every agentrt memory store must show, run against each backend (store.sqlite.test.ts,
 * store.postgres.test.ts). Its BaseStore contract part also runs against LangGraph's InMemoryStore, which keeps
 * our reading of the contract honest.
 */
import { Annotation, END, type LangGraphRunnableConfig, MemorySaver, START, StateGraph, getStore } from "@langchain/langgraph";
import type { BaseStore, GetOperation, ListNamespacesOperation, PutOperation, SearchOperation } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MemoryStore, MemoryStoreOptions } from "../../../src/memory/memory-store.js";

/** A store on a fresh, empty database, and more stores on that same database. */
export interface StoreUnderTest<S extends BaseStore = MemoryStore> {
  store: S;
  /** Another store on the same database (its own connection where the backend has them). */
  openAnother(options?: MemoryStoreOptions): Promise<S>;
  /** Closes every store and connection this opened. */
  close(): Promise<void>;
}

/** Opens a store on a fresh, empty database with these options. */
export type OpenStore<S extends BaseStore = MemoryStore> = (options: MemoryStoreOptions) => Promise<StoreUnderTest<S>>;

/** LangGraph's BaseStore contract, the part every store (InMemoryStore included) passes. */
export function describeBaseStoreContract(name: string, open: OpenStore<BaseStore>): void {
  describe(`BaseStore contract: ${name}`, () => {
    let store: BaseStore;
    let opened: StoreUnderTest<BaseStore>;
    beforeEach(async () => {
      opened = await open({});
      store = opened.store;
    });
    afterEach(() => opened.close());

    it("puts, gets, overwrites and deletes an item", async () => {
      expect(await store.get(["users", "a"], "prefs")).toBeNull();
      await store.put(["users", "a"], "prefs", { language: "Chinese" });
      const first = await store.get(["users", "a"], "prefs");
      expect(first).toMatchObject({ namespace: ["users", "a"], key: "prefs", value: { language: "Chinese" } });
      expect(first?.createdAt).toBeInstanceOf(Date);
      await store.put(["users", "a"], "prefs", { language: "English" });
      const second = await store.get(["users", "a"], "prefs");
      expect(second?.value).toEqual({ language: "English" });
      expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime());
      await store.delete(["users", "a"], "prefs");
      expect(await store.get(["users", "a"], "prefs")).toBeNull();
    });

    it("keeps namespaces apart: same key, different namespace", async () => {
      await store.put(["users", "a"], "k", { who: "a" });
      await store.put(["users", "b"], "k", { who: "b" });
      await store.put(["users", "a", "deep"], "k", { who: "a-deep" });
      expect((await store.get(["users", "a"], "k"))?.value).toEqual({ who: "a" });
      expect((await store.get(["users", "b"], "k"))?.value).toEqual({ who: "b" });
      expect(await store.get(["users"], "k")).toBeNull();
    });

    it("searches by namespace prefix, label by label", async () => {
      await store.put(["users", "a"], "1", { n: 1 });
      await store.put(["users", "a", "notes"], "2", { n: 2 });
      await store.put(["users", "ab"], "3", { n: 3 });
      await store.put(["teams", "x"], "4", { n: 4 });
      const keys = async (prefix: string[]) => (await store.search(prefix, { limit: 100 })).map((i) => i.key).sort();
      expect(await keys(["users", "a"])).toEqual(["1", "2"]);
      expect(await keys(["users"])).toEqual(["1", "2", "3"]);
      expect(await keys([])).toEqual(["1", "2", "3", "4"]);
      expect(await keys(["nobody"])).toEqual([]);
    });

    it("filters by exact value and by operators", async () => {
      await store.put(["docs"], "a", { type: "report", score: 3, done: true });
      await store.put(["docs"], "b", { type: "report", score: 7, done: false });
      await store.put(["docs"], "c", { type: "memo", score: 5 });
      const keys = async (filter: Record<string, unknown>) =>
        (await store.search(["docs"], { filter, limit: 100 })).map((i) => i.key).sort();
      expect(await keys({ type: "report" })).toEqual(["a", "b"]);
      expect(await keys({ type: "report", done: true })).toEqual(["a"]);
      expect(await keys({ score: { $gt: 3 } })).toEqual(["b", "c"]);
      expect(await keys({ score: { $gte: 3, $lt: 7 } })).toEqual(["a", "c"]);
      expect(await keys({ score: { $lte: 5 } })).toEqual(["a", "c"]);
      expect(await keys({ type: { $eq: "memo" } })).toEqual(["c"]);
      expect(await keys({ type: { $ne: "memo" } })).toEqual(["a", "b"]);
      expect(await keys({ done: { $ne: true } })).toEqual(["b", "c"]);
      expect(await keys({ type: { $in: ["memo", "other"] } })).toEqual(["c"]);
      expect(await keys({ type: { $nin: ["memo"] } })).toEqual(["a", "b"]);
      expect(await keys({ missing: "x" })).toEqual([]);
    });

    it("paginates with limit and offset without losing or repeating items", async () => {
      for (let i = 0; i < 7; i++) await store.put(["p"], `k${i}`, { i });
      const pages = [];
      for (let offset = 0; offset < 8; offset += 3) pages.push(await store.search(["p"], { limit: 3, offset }));
      expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
      const keys = pages.flat().map((i) => i.key);
      expect(new Set(keys).size).toBe(7);
      expect(await store.search(["p"])).toHaveLength(7);
    });

    it("lists namespaces with prefix, suffix, wildcards, depth and pagination", async () => {
      await store.put(["users", "a", "prefs"], "k", { v: 1 });
      await store.put(["users", "b", "prefs"], "k", { v: 1 });
      await store.put(["users", "b", "history"], "k", { v: 1 });
      await store.put(["teams", "x", "prefs"], "k", { v: 1 });
      const sorted = (list: string[][]) => list.map((ns) => ns.join("/")).sort();
      expect(sorted(await store.listNamespaces())).toEqual(["teams/x/prefs", "users/a/prefs", "users/b/history", "users/b/prefs"]);
      expect(sorted(await store.listNamespaces({ prefix: ["users"] }))).toEqual(["users/a/prefs", "users/b/history", "users/b/prefs"]);
      expect(sorted(await store.listNamespaces({ suffix: ["prefs"] }))).toEqual(["teams/x/prefs", "users/a/prefs", "users/b/prefs"]);
      expect(sorted(await store.listNamespaces({ prefix: ["users", "*", "prefs"] }))).toEqual(["users/a/prefs", "users/b/prefs"]);
      expect(sorted(await store.listNamespaces({ prefix: ["users"], suffix: ["history"] }))).toEqual(["users/b/history"]);
      expect(sorted(await store.listNamespaces({ maxDepth: 2 }))).toEqual(["teams/x", "users/a", "users/b"]);
      expect(sorted(await store.listNamespaces({ prefix: ["users"], maxDepth: 1 }))).toEqual(["users"]);
      const page1 = await store.listNamespaces({ limit: 2, offset: 0 });
      const page2 = await store.listNamespaces({ limit: 2, offset: 2 });
      expect(sorted([...page1, ...page2])).toEqual(sorted(await store.listNamespaces()));
    });

    it("refuses invalid namespaces", async () => {
      await expect(store.put([], "k", { v: 1 })).rejects.toThrow();
      await expect(store.put(["a.b"], "k", { v: 1 })).rejects.toThrow();
      await expect(store.put(["langgraph"], "k", { v: 1 })).rejects.toThrow();
      await expect(store.put(["a", ""], "k", { v: 1 })).rejects.toThrow();
    });

    it("batch answers every operation in order", async () => {
      await store.put(["b"], "x", { v: 1 });
      const ops: [GetOperation, PutOperation, ListNamespacesOperation] = [
        { namespace: ["b"], key: "x" },
        { namespace: ["b"], key: "y", value: { v: 2 } },
        { matchConditions: undefined, limit: 10, offset: 0 },
      ];
      const [got, , listed] = await store.batch(ops);
      expect(got?.value).toEqual({ v: 1 });
      expect(listed).toEqual([["b"]]);
      expect((await store.get(["b"], "y"))?.value).toEqual({ v: 2 });
    });
  });
}

/** The contract plus agentrt's own behaviour: typed filters, lexical query, ordering, TTL, errors, sharing. */
export function describeStoreConformance(name: string, open: OpenStore): void {
  describeBaseStoreContract(name, open);
  describeStoreBehaviour(name, open);
}

function describeStoreBehaviour(name: string, open: OpenStore): void {
  describe(`memory store: ${name}`, () => {
    let now: number;
    let opened: StoreUnderTest;
    let store: MemoryStore;
    beforeEach(async () => {
      now = 1_000_000;
      opened = await open({ now: () => now });
      store = opened.store;
    });
    afterEach(() => opened.close());

    it("equality is typed: a string never equals a number or a boolean", async () => {
      await store.put(["t"], "num", { v: 1 });
      await store.put(["t"], "str", { v: "1" });
      await store.put(["t"], "bool", { v: true });
      await store.put(["t"], "nul", { v: null });
      await store.put(["t"], "obj", { v: { a: 1 } });
      await store.put(["t"], "arr", { v: [1, "x"] });
      const keys = async (filter: Record<string, unknown>) => (await store.search(["t"], { filter })).map((i) => i.key).sort();
      expect(await keys({ v: 1 })).toEqual(["num"]);
      expect(await keys({ v: "1" })).toEqual(["str"]);
      expect(await keys({ v: true })).toEqual(["bool"]);
      expect(await keys({ v: null })).toEqual(["nul"]);
      expect(await keys({ v: { a: 1 } })).toEqual(["obj"]);
      expect(await keys({ v: [1, "x"] })).toEqual(["arr"]);
      expect(await keys({ v: { $in: [1, true] } })).toEqual(["bool", "num"]);
      expect(await keys({ v: { $nin: [1, true] } })).toEqual(["arr", "nul", "obj", "str"]);
      expect(await keys({ v: { $in: [] } })).toEqual([]);
      expect(await keys({ v: { $ne: null } })).toEqual(["arr", "bool", "num", "obj", "str"]);
      expect(await keys({ other: { $ne: 1 } })).toEqual(["arr", "bool", "nul", "num", "obj", "str"]);
    });

    it("compares numbers numerically and strings lexicographically, so ISO dates range-filter", async () => {
      await store.put(["e"], "jan", { at: "2026-01-15", n: 9 });
      await store.put(["e"], "mar", { at: "2026-03-01", n: 10.5 });
      await store.put(["e"], "num", { at: 20260201, n: "11" });
      const keys = async (filter: Record<string, unknown>) => (await store.search(["e"], { filter })).map((i) => i.key).sort();
      expect(await keys({ at: { $gte: "2026-02-01" } })).toEqual(["mar"]);
      expect(await keys({ at: { $lt: "2026-02" } })).toEqual(["jan"]);
      expect(await keys({ n: { $gt: 9.5 } })).toEqual(["mar"]);
      expect(await keys({ n: { $lte: 10.5 } })).toEqual(["jan", "mar"]);
      // Code-point order, whatever the database's collation: "Z" < "a" < "é".
      await store.put(["c"], "upper", { s: "Z" });
      await store.put(["c"], "lower", { s: "a" });
      await store.put(["c"], "accent", { s: "é" });
      expect((await store.search(["c"], { filter: { s: { $gt: "Z" } } })).map((i) => i.key).sort()).toEqual(["accent", "lower"]);
      expect((await store.search(["c"], { filter: { s: { $lt: "b" } } })).map((i) => i.key).sort()).toEqual(["lower", "upper"]);
    });

    it("refuses a malformed filter with BAD_INPUT", async () => {
      await expect(store.search(["e"], { filter: { a: { $gt: [1] } } })).rejects.toMatchObject({ code: "BAD_INPUT" });
      await expect(store.search(["e"], { filter: { a: { $gt: null } } })).rejects.toMatchObject({ code: "BAD_INPUT" });
      await expect(store.search(["e"], { filter: { a: { $in: "x" } } })).rejects.toMatchObject({ code: "BAD_INPUT" });
      await expect(store.search(["e"], { filter: { "": 1 } })).rejects.toMatchObject({ code: "BAD_INPUT" });
      const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, i]));
      await expect(store.search(["e"], { filter: many })).rejects.toMatchObject({ code: "BAD_INPUT" });
      await expect(store.search(["e"], { filter: { a: { $in: Array.from({ length: 201 }, (_, i) => i) } } })).rejects.toMatchObject({ code: "BAD_INPUT" });
      // A quote or backslash in a field name is a plain field name, not refused.
      await store.put(["e"], "odd", { 'a"b': 1, "c\\d": 2 });
      expect((await store.search(["e"], { filter: { 'a"b': 1, "c\\d": 2 } })).map((i) => i.key)).toEqual(["odd"]);
    });

    it("refuses a value that is not a JSON object, too deep, or a non-positive TTL, with BAD_INPUT", async () => {
      await expect(store.put(["v"], "k", [1] as unknown as Record<string, unknown>)).rejects.toMatchObject({ code: "BAD_INPUT" });
      let deep: Record<string, unknown> = { leaf: 1 };
      for (let i = 0; i < 600; i++) deep = { d: deep };
      await expect(store.put(["v"], "k", deep)).rejects.toMatchObject({ code: "BAD_INPUT" });
      await expect(store.put(["v"], "k", { v: 1 }, undefined, { ttlMs: 0 })).rejects.toMatchObject({ code: "BAD_INPUT" });
      expect(await store.get(["v"], "k")).toBeNull();
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
      expect(await store.search(["m"], { query: "  ...  " })).toHaveLength(5);
    });

    it("orders search by score, then newest first, then namespace and key", async () => {
      await store.put(["o"], "old", { v: "alpha" });
      now += 10;
      await store.put(["o", "b"], "b", { v: "alpha beta" });
      await store.put(["o", "a"], "z", { v: "beta" });
      await store.put(["o", "a"], "y", { v: "beta" });
      expect((await store.search(["o"])).map((i) => i.key)).toEqual(["y", "z", "b", "old"]);
      expect((await store.search(["o"], { query: "alpha beta" })).map((i) => [i.key, i.score])).toEqual([
        ["b", 1],
        ["y", 0.5],
        ["z", 0.5],
        ["old", 0.5],
      ]);
      expect((await store.search(["o"], { limit: 2, offset: 1 })).map((i) => i.key)).toEqual(["z", "b"]);
    });

    it("lists namespaces in label order", async () => {
      for (const ns of [["b"], ["a", "z"], ["a"], ["B"], ["a", "b", "c"]]) await store.put(ns, "k", { v: 1 });
      expect(await store.listNamespaces()).toEqual([["B"], ["a"], ["a", "b", "c"], ["a", "z"], ["b"]]);
      expect(await store.listNamespaces({ maxDepth: 1, limit: 2, offset: 1 })).toEqual([["a"], ["b"]]);
      expect(await store.listNamespaces({ suffix: ["*", "c"] })).toEqual([["a", "b", "c"]]);
    });

    it("batch reads see the state before the batch's writes; the last put of a key wins", async () => {
      await store.put(["b"], "x", { v: 1 });
      const ops: [PutOperation, GetOperation, SearchOperation, PutOperation, PutOperation, GetOperation] = [
        { namespace: ["b"], key: "x", value: { v: 2 } },
        { namespace: ["b"], key: "x" },
        { namespacePrefix: ["b"], limit: 10, offset: 0 },
        { namespace: ["b"], key: "y", value: { v: 3 } },
        { namespace: ["b"], key: "x", value: null },
        { namespace: ["b"], key: "y" },
      ];
      const [, got, found, , , missing] = await store.batch(ops);
      expect(got?.value).toEqual({ v: 1 });
      expect(found.map((i) => i.key)).toEqual(["x"]);
      expect(missing).toBeNull();
      expect(await store.get(["b"], "x")).toBeNull();
      expect((await store.get(["b"], "y"))?.value).toEqual({ v: 3 });
    });

    it("round-trips values: nested JSON, unicode, large numbers, timestamps", async () => {
      const value = { text: "中文 ✓ \"quoted\" \\ back", nested: { list: [1, 2.5, null, true, { deep: ["x"] }] }, big: 9007199254740991, neg: -0.125 };
      now = 1_764_000_000_123;
      await store.put(["r"], "k", value);
      const item = await store.get(["r"], "k");
      expect(item?.value).toEqual(value);
      expect(item?.createdAt.getTime()).toBe(now);
      expect(item?.updatedAt.getTime()).toBe(now);
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
        expect(await store.sweepExpired()).toBe(1);
      });

      it("applies the default TTL, and can be kept from refreshing on read", async () => {
        const fixed = await opened.openAnother({ now: () => now, defaultTtlMs: 1000, refreshOnRead: false });
        await fixed.put(["s"], "k", { v: 1 });
        await fixed.put(["s"], "forever", { v: 1 }, undefined, { ttlMs: null });
        now += 900;
        expect(await fixed.get(["s"], "k")).not.toBeNull();
        expect(await fixed.search(["s"])).toHaveLength(2);
        now += 100;
        expect(await fixed.get(["s"], "k")).toBeNull();
        expect(await fixed.get(["s"], "forever")).not.toBeNull();
      });

      it("re-putting an expired key starts a new item; a write sweeps expired ones", async () => {
        await store.put(["s"], "k", { v: 1 }, undefined, { ttlMs: 10 });
        await store.put(["s"], "gone", { v: 1 }, undefined, { ttlMs: 10 });
        now += 50;
        await store.put(["s"], "k", { v: 2 });
        const item = await store.get(["s"], "k");
        expect(item?.createdAt.getTime()).toBe(now);
        expect(item?.value).toEqual({ v: 2 });
        expect(await store.sweepExpired()).toBe(0);
      });

      it("a put without a TTL makes an item permanent; one with a TTL makes it expire", async () => {
        await store.put(["s"], "k", { v: 1 }, undefined, { ttlMs: 10 });
        await store.put(["s"], "k", { v: 2 });
        now += 50;
        expect((await store.get(["s"], "k"))?.value).toEqual({ v: 2 });
        await store.put(["s"], "k", { v: 3 }, undefined, { ttlMs: 10 });
        now += 10;
        expect(await store.get(["s"], "k")).toBeNull();
      });
    });

    it("two stores on one database see each other's writes", async () => {
      const other = await opened.openAnother();
      await store.put(["users", "a"], "prefs", { team: "payments" });
      expect((await other.get(["users", "a"], "prefs"))?.value).toEqual({ team: "payments" });
      await other.delete(["users", "a"], "prefs");
      expect(await store.get(["users", "a"], "prefs")).toBeNull();
    });

    it("a preference saved in one thread is used in the user's next thread and never leaks to another user", async () => {
      const saved = await buildGraph(store).invoke(
        { message: "Please answer in Chinese; my team is payments" },
        { configurable: { thread_id: "t-a-1", user_id: "alice" } },
      );
      expect(saved.reply).toBe("language=Chinese team=payments");
      // A later run on another store (as another process would open it).
      const second = await opened.openAnother();
      const graph2 = buildGraph(second);
      const again = await graph2.invoke({ message: "What failed in the deploy?" }, { configurable: { thread_id: "t-a-2", user_id: "alice" } });
      expect(again.reply).toBe("language=Chinese team=payments");
      const other = await graph2.invoke({ message: "What failed in the deploy?" }, { configurable: { thread_id: "t-b-1", user_id: "bob" } });
      expect(other.reply).toBe("language=default team=unknown");
      await graph2.invoke({ message: "answer in English" }, { configurable: { thread_id: "t-b-2", user_id: "bob" } });
      expect((await second.get(["users", "alice", "prefs"], "language"))?.value).toEqual({ value: "Chinese" });
      expect((await second.get(["users", "bob", "prefs"], "language"))?.value).toEqual({ value: "English" });
      expect(await second.listNamespaces({ prefix: ["users"], maxDepth: 2 })).toEqual([
        ["users", "alice"],
        ["users", "bob"],
      ]);
    });
  });
}

const State = Annotation.Root({ message: Annotation<string>, reply: Annotation<string> });

function userOf(config: LangGraphRunnableConfig): string {
  const user = config.configurable?.user_id as unknown;
  if (typeof user !== "string") throw new Error("user_id missing");
  return user;
}

/** Remembers "answer in X" / "my team is Y" per user; answers using what it remembers. */
function buildGraph(store: BaseStore) {
  return new StateGraph(State)
    .addNode("remember", async (state, config) => {
      // config.store is LangGraph's batching wrapper around the store under test.
      const memory = config.store!;
      const ns = ["users", userOf(config), "prefs"];
      const language = /answer in (\w+)/i.exec(state.message)?.[1];
      if (language !== undefined) await memory.put(ns, "language", { value: language });
      const team = /my team is (\w+)/i.exec(state.message)?.[1];
      if (team !== undefined) await memory.put(ns, "team", { value: team });
      return {};
    })
    .addNode("answer", async (_state, config) => {
      const memory = getStore()!;
      const prefs = await memory.search(["users", userOf(config), "prefs"]);
      const known = Object.fromEntries(prefs.map((p) => [p.key, p.value.value as string]));
      return { reply: `language=${known.language ?? "default"} team=${known.team ?? "unknown"}` };
    })
    .addEdge(START, "remember")
    .addEdge("remember", "answer")
    .addEdge("answer", END)
    .compile({ checkpointer: new MemorySaver(), store });
}
