/**
 * The BaseStore contract every memory backend must pass. It also runs against
 * LangGraph's InMemoryStore, which keeps our reading of the contract honest.
 */
import type { BaseStore, GetOperation, ListNamespacesOperation, PutOperation } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** Creates a fresh, empty store and a function that disposes of it. */
export type StoreFactory = () => { store: BaseStore; dispose: () => void };

export function storeSpec(name: string, factory: StoreFactory): void {
  describe(`BaseStore contract: ${name}`, () => {
    let store: BaseStore;
    let dispose: () => void;
    beforeEach(() => {
      ({ store, dispose } = factory());
    });
    afterEach(() => dispose());

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
      expect((await store.get(["users"], "k"))).toBeNull();
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
