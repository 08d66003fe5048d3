// The server's thread store, run on every backend (thread-store.sqlite.test.ts, thread-store.postgres.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import type { ThreadStore } from "../../../src/server/thread-store.js";

/** A store over a fresh, empty database; `close` releases it. */
export interface ThreadStoreBackend {
  store: ThreadStore;
  close(): Promise<void>;
}

const all = { limit: -1, offset: 0 };

/** Registers the ThreadStore behaviour tests against the stores `open` makes. */
export function describeThreadStoreConformance(name: string, open: () => Promise<ThreadStoreBackend>): void {
  describe(`ThreadStore (${name})`, () => {
    const opened: ThreadStoreBackend[] = [];
    const fresh = async () => {
      const made = await open();
      opened.push(made);
      return made.store;
    };
    afterEach(async () => {
      for (const made of opened.splice(0)) await made.close();
    });

    it("creates, finds and gets a thread; a duplicate id is 409 THREAD_EXISTS unless do_nothing returns it unchanged", async () => {
      const store = await fresh();
      const created = await store.create("t1", { team: "pay", nested: { b: 1, a: [1, "x"] } });
      expect(created).toMatchObject({ threadId: "t1", metadata: { team: "pay", nested: { b: 1, a: [1, "x"] } } });
      expect(created.updatedAt).toBe(created.createdAt);
      expect(await store.find("t1")).toEqual(created);
      expect(await store.get("t1")).toEqual(created);
      await expect(store.create("t1", { team: "ops" })).rejects.toMatchObject({ status: 409, code: "THREAD_EXISTS" });
      expect(await store.create("t1", { team: "ops" }, "do_nothing")).toEqual(created);
      expect(await store.find("nope")).toBeUndefined();
      await expect(store.get("nope")).rejects.toMatchObject({ status: 404, code: "UNKNOWN_THREAD" });
    });

    it("answers racing creates of one id with one thread: the others get 409 or, with do_nothing, that thread", async () => {
      const store = await fresh();
      const raced = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.create("race", { n: i })));
      expect(raced.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of raced) if (r.status === "rejected") expect(r.reason).toMatchObject({ status: 409, code: "THREAD_EXISTS" });
      const kept = await store.get("race");
      const quiet = await Promise.all(Array.from({ length: 4 }, () => store.create("race", { other: true }, "do_nothing")));
      expect(quiet).toEqual(Array.from({ length: 4 }, () => kept));
    });

    it("patches by merging top-level keys and touching the thread; an unknown thread is 404", async () => {
      const store = await fresh();
      const created = await store.create("t1", { a: 1, b: { x: 1 } });
      const patched = await store.patch("t1", { b: { y: 2 }, c: null });
      expect(patched).toMatchObject({ threadId: "t1", createdAt: created.createdAt, metadata: { a: 1, b: { y: 2 }, c: null } });
      expect(patched.updatedAt).toBeGreaterThanOrEqual(created.updatedAt);
      expect(await store.get("t1")).toEqual(patched);
      await expect(store.patch("nope", { a: 1 })).rejects.toMatchObject({ status: 404, code: "UNKNOWN_THREAD" });
      expect(await store.find("nope")).toBeUndefined();
    });

    it("searches by metadata values (strings, numbers, objects, null matching a missing key) and ids", async () => {
      const store = await fresh();
      await store.create("t-a", { team: "pay", level: 2, tags: ["vip"], owner: { name: "ann" } });
      await store.create("t-b", { team: "pay", level: 3, owner: null });
      await store.create("t-c", { team: "ops", level: 2 });
      const ids = async (filter: Parameters<ThreadStore["search"]>[0]) => (await store.search(filter)).map((t) => t.threadId).sort();
      expect(await ids({ ...all, metadata: { team: "pay" } })).toEqual(["t-a", "t-b"]);
      expect(await ids({ ...all, metadata: { team: "pay", level: 2 } })).toEqual(["t-a"]);
      expect(await ids({ ...all, metadata: { tags: ["vip"] } })).toEqual(["t-a"]);
      expect(await ids({ ...all, metadata: { owner: { name: "ann" } } })).toEqual(["t-a"]);
      expect(await ids({ ...all, metadata: { owner: null } })).toEqual(["t-b", "t-c"]);
      expect(await ids({ ...all, metadata: { team: "PAY" } })).toEqual([]);
      expect(await ids({ ...all, metadata: { level: "2" } })).toEqual([]);
      expect(await ids({ ...all, ids: ["t-a", "t-c", "t-x"] })).toEqual(["t-a", "t-c"]);
      expect(await ids({ ...all, ids: [] })).toEqual([]);
      expect(await ids({ ...all, ids: ["t-a", "t-b"], metadata: { level: 3 } })).toEqual(["t-b"]);
    });

    it("matches booleans as booleans: true is neither 1 nor \"true\", and false is not 0", async () => {
      const store = await fresh();
      await store.create("t-true", { done: true, n: 1 });
      await store.create("t-false", { done: false, n: 0 });
      await store.create("t-one", { done: 1, n: true });
      await store.create("t-text", { done: "true" });
      const ids = async (metadata: Record<string, unknown>) => (await store.search({ ...all, metadata })).map((t) => t.threadId).sort();
      expect(await ids({ done: true })).toEqual(["t-true"]);
      expect(await ids({ done: false })).toEqual(["t-false"]);
      expect(await ids({ done: 1 })).toEqual(["t-one"]);
      expect(await ids({ n: 1 })).toEqual(["t-true"]);
      expect(await ids({ n: 1.0, done: true })).toEqual(["t-true"]);
      expect(await ids({ n: 0 })).toEqual(["t-false"]);
      expect(await ids({ n: true })).toEqual(["t-one"]);
    });

    it("matches metadata keys with quotes, backslashes, dots and brackets as written", async () => {
      const store = await fresh();
      await store.create("odd", { "a\\b": 1, "q\"x": 2, "x.y": 3, "[0]": 4, "$": 5 });
      await store.create("plain", { x: { y: 3 } });
      for (const metadata of [{ "a\\b": 1 }, { "q\"x": 2 }, { "x.y": 3 }, { "[0]": 4 }, { "$": 5 }]) {
        expect((await store.search({ ...all, metadata })).map((t) => t.threadId)).toEqual(["odd"]);
      }
    });

    it("orders newest created first by default, or by id or creation either way, with limit and offset", async () => {
      const store = await fresh();
      for (const id of ["t-a", "t-b", "t-c", "t-d"]) await store.create(id, {});
      const order = async (filter: Partial<Parameters<ThreadStore["search"]>[0]>) => (await store.search({ ...all, ...filter })).map((t) => t.threadId);
      expect(await order({})).toEqual(["t-d", "t-c", "t-b", "t-a"]);
      expect(await order({ sortBy: "created_at", sortOrder: "asc" })).toEqual(["t-a", "t-b", "t-c", "t-d"]);
      expect(await order({ sortBy: "thread_id", sortOrder: "asc", limit: 2, offset: 1 })).toEqual(["t-b", "t-c"]);
      expect(await order({ sortBy: "thread_id", sortOrder: "desc", limit: 2 })).toEqual(["t-d", "t-c"]);
      expect(await order({ offset: 3 })).toEqual(["t-a"]);
      expect(await order({ limit: 0 })).toEqual([]);
    });

    it("deletes a thread row, true only when it existed", async () => {
      const store = await fresh();
      await store.create("t1", {});
      expect(await store.delete("t1")).toBe(true);
      expect(await store.delete("t1")).toBe(false);
      expect(await store.find("t1")).toBeUndefined();
      expect(await store.search(all)).toEqual([]);
    });

    it("copies: the new thread with the given metadata and its state copied; a failed state copy leaves no thread", async () => {
      const store = await fresh();
      await store.create("src", { team: "pay" });
      const copiedTo: string[] = [];
      const copy = await store.copy("copy-1", { team: "pay", graph_id: "g" }, (threadId) => {
        copiedTo.push(threadId);
      });
      expect(copy).toMatchObject({ threadId: "copy-1", metadata: { team: "pay", graph_id: "g" } });
      expect(copiedTo).toEqual(["copy-1"]);
      expect(await store.get("copy-1")).toEqual(copy);
      await expect(store.copy("copy-2", {}, () => {
        throw new Error("disk full");
      })).rejects.toThrow("disk full");
      expect(await store.find("copy-2")).toBeUndefined();
      expect((await store.search(all)).map((t) => t.threadId).sort()).toEqual(["copy-1", "src"]);
    });
  });
}
