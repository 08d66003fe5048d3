// threads.search and threads.count with the filters and orders the SDK sends (ids, sort_by, sort_order, status),
// and a duplicate thread id answered with THREAD_EXISTS.
import { describe, expect, it } from "vitest";
import { ROLLBACK_INPUT, serverBackends, testServerForFile } from "./harness.js";

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  const ctx = testServerForFile({ db: db() });

  describe("thread search", () => {
    it("filters by ids and metadata, orders by id or last change, and counts by status", async () => {
      const a = await ctx.client.threads.create({ threadId: "t-a", metadata: { team: "pay" } });
      const b = await ctx.client.threads.create({ threadId: "t-b", metadata: { team: "pay" } });
      await ctx.client.threads.create({ threadId: "t-c", metadata: { team: "ops" } });
      expect(b.state_updated_at).toBe(b.updated_at);

      expect((await ctx.client.threads.search({ ids: ["t-a", "t-c"] })).map((t) => t.thread_id).sort()).toEqual(["t-a", "t-c"]);
      expect((await ctx.client.threads.search({ metadata: { team: "pay" }, sortBy: "thread_id", sortOrder: "asc" })).map((t) => t.thread_id)).toEqual(["t-a", "t-b"]);
      expect((await ctx.client.threads.search({ sortBy: "thread_id", sortOrder: "desc", limit: 2 })).map((t) => t.thread_id)).toEqual(["t-c", "t-b"]);

      // A run on the oldest thread makes it the most recently updated.
      await ctx.client.runs.wait(a.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
      expect((await ctx.client.threads.search({ sortBy: "updated_at", sortOrder: "desc", limit: 1 }))[0]?.thread_id).toBe("t-a");
      expect((await ctx.client.threads.search({ sortBy: "created_at", sortOrder: "desc", limit: 1 }))[0]?.thread_id).toBe("t-c");

      expect(await ctx.client.threads.count({ metadata: { team: "pay" } })).toBe(2);
      expect(await ctx.client.threads.count({ status: "interrupted" })).toBe(1);
      expect(await ctx.client.threads.count({ status: "idle" })).toBe(2);
      const byStatus = await ctx.client.threads.search({ sortBy: "status", sortOrder: "asc", limit: 3 });
      expect(byStatus.map((t) => t.status)).toEqual(["idle", "idle", "interrupted"]);
      expect((await ctx.client.threads.search({ sortBy: "status", sortOrder: "desc", limit: 1 }))[0]?.thread_id).toBe("t-a");
    });

    it("filters a thread's history by checkpoint metadata", async () => {
      const thread = await ctx.client.threads.create();
      await ctx.client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
      const all = await ctx.client.threads.getHistory(thread.thread_id, { limit: 100 });
      const inputs = await ctx.client.threads.getHistory(thread.thread_id, { limit: 100, metadata: { source: "input" } });
      expect(all.length).toBeGreaterThan(inputs.length);
      expect(inputs.length).toBeGreaterThan(0);
      expect(inputs.every((s) => s.metadata?.source === "input")).toBe(true);
    });

    it("copies a thread: same state and history, then each goes on alone", async () => {
      const source = await ctx.client.threads.create({ metadata: { team: "pay" } });
      await ctx.client.runs.wait(source.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
      // Its run waits for an approval that a copy could never give: refused until that run is over.
      await expect(ctx.client.threads.copy(source.thread_id)).rejects.toThrow(/409|unfinished run/);
      const [waiting] = await ctx.client.runs.list(source.thread_id);
      await ctx.client.runs.cancel(source.thread_id, waiting!.run_id, true);
      const copy = await ctx.client.threads.copy(source.thread_id);
      expect(copy.thread_id).not.toBe(source.thread_id);
      expect(copy.metadata).toMatchObject({ team: "pay", graph_id: "ops_rollback" });
      const [before, copied] = await Promise.all([ctx.client.threads.getState(source.thread_id), ctx.client.threads.getState(copy.thread_id)]);
      expect(copied.values).toEqual(before.values);
      expect(copied.next).toEqual(before.next);
      expect((await ctx.client.threads.getHistory(copy.thread_id, { limit: 100 })).length).toBe((await ctx.client.threads.getHistory(source.thread_id, { limit: 100 })).length);
      // The copy has the state but not the run: a new run on it starts from the copied state.
      await ctx.client.threads.updateState(copy.thread_id, { values: { messages: [] } });
      expect((await ctx.client.threads.getState(source.thread_id)).values).toEqual(before.values);
      expect((await ctx.client.threads.get(copy.thread_id)).status).toBe("idle");
    });

    it("answers a duplicate thread id with 409 THREAD_EXISTS, and returns it with if_exists do_nothing", async () => {
      await ctx.client.threads.create({ threadId: "dup", metadata: { n: 1 } });
      const response = await fetch(`${ctx.server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ thread_id: "dup" }) });
      expect(response.status).toBe(409);
      expect(((await response.json()) as { code?: string }).code).toBe("THREAD_EXISTS");
      expect((await ctx.client.threads.create({ threadId: "dup", ifExists: "do_nothing" })).metadata).toEqual({ n: 1 });
    });
  });
});
