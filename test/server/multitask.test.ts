// multitask_strategy on a thread with an unfinished run, through the SDK: reject refuses, enqueue runs the new run
// after the first on the same thread, interrupt cancels the first and runs the new one (a run waiting for an answer
// is superseded instead; see new-input.test.ts); unsupported options are refused with a reason instead of being
// ignored; on SQLite and on PostgreSQL.
import { afterAll, describe, expect, it } from "vitest";
import { fixtureEntry, graphEntry, ROLLBACK_INPUT, serverBackends, testServerForFile } from "./harness.js";

process.env.SLOW_STEP_MS = "150";
afterAll(() => {
  delete process.env.SLOW_STEP_MS;
});
describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  const ctx = testServerForFile({ db: db() }, { slow: fixtureEntry("slow-graph"), ops_rollback: graphEntry("ops_rollback") });
  const statusCode = async (promise: Promise<unknown>) => promise.then(() => 200, (error: { status?: number }) => error.status);

  describe("multitask_strategy", () => {
    it("reject (the default) refuses a second run while the first is unfinished", async () => {
      const thread = await ctx.client.threads.create();
      const first = await ctx.client.runs.create(thread.thread_id, "slow", { input: {} });
      expect(await statusCode(ctx.client.runs.create(thread.thread_id, "slow", { input: {} }))).toBe(409);
      await ctx.client.runs.join(thread.thread_id, first.run_id);
      expect((await ctx.client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success"]);
    });

    it("enqueue runs the new run after the first, on the thread's state", async () => {
      const thread = await ctx.client.threads.create();
      const first = await ctx.client.runs.create(thread.thread_id, "slow", { input: {} });
      const second = (await ctx.client.runs.wait(thread.thread_id, "slow", { input: {}, multitaskStrategy: "enqueue" })) as { steps: string[] };
      // The second run started from the first one's final state: both runs' steps, in order.
      expect(second.steps).toEqual(["a", "b", "c", "a", "b", "c"]);
      expect((await ctx.client.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
    });

    it("streams an enqueued run live once the run before it has finished", async () => {
      const thread = await ctx.client.threads.create();
      await ctx.client.runs.create(thread.thread_id, "slow", { input: {} });
      const steps: string[][] = [];
      for await (const part of ctx.client.runs.stream(thread.thread_id, "slow", { input: {}, multitaskStrategy: "enqueue", streamMode: "values" })) {
        if (part.event === "values") steps.push((part.data as { steps: string[] }).steps);
      }
      // One values event per step of the second run, each on top of the first run's steps.
      expect(steps.at(-1)).toEqual(["a", "b", "c", "a", "b", "c"]);
      expect(steps.length).toBeGreaterThanOrEqual(3);
      // Bounded well below the 30 s a streamed run is held for this process: it must not wait that hold out.
    }, 15_000);

    it("interrupt cancels the unfinished run, then runs the new one", async () => {
      const thread = await ctx.client.threads.create();
      const first = await ctx.client.runs.create(thread.thread_id, "slow", { input: {} });
      await ctx.client.runs.wait(thread.thread_id, "slow", { input: {}, multitaskStrategy: "interrupt" });
      expect((await ctx.client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
      expect((await ctx.client.threads.get(thread.thread_id)).status).toBe("idle");
    });


    it("interrupt drops a run waiting for approval; enqueue supersedes it, unless if_waiting is reject", async () => {
      const thread = await ctx.client.threads.create();
      await ctx.client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
      expect((await ctx.client.threads.get(thread.thread_id)).status).toBe("interrupted");
      const held = await fetch(`${ctx.server.url}/threads/${thread.thread_id}/runs`, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT, multitask_strategy: "enqueue", if_waiting: "reject" }),
      });
      expect(held.status).toBe(409);
      const again = (await ctx.client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT, multitaskStrategy: "interrupt" })) as { __interrupt__?: unknown[] };
      expect(again.__interrupt__?.length).toBeGreaterThan(0);
      expect((await ctx.client.runs.list(thread.thread_id)).map((r) => r.metadata?.agentrt_status).sort()).toEqual(["CANCELED", "WAITING_APPROVAL"]);
      // Enqueued behind nothing running: the waiting run is superseded and the new one runs at once.
      const queued = (await ctx.client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT, multitaskStrategy: "enqueue" })) as { __interrupt__?: unknown[] };
      expect(queued.__interrupt__?.length).toBeGreaterThan(0);
      expect((await ctx.client.runs.list(thread.thread_id)).map((r) => r.metadata?.agentrt_status).sort()).toEqual(["CANCELED", "CANCELED", "WAITING_APPROVAL"]);
    });

    it("on_disconnect cancel stops the run when its streaming client goes away; by default it goes on", async () => {
      const streamThenLeave = async (threadId: string, onDisconnect?: string) => {
        const abort = new AbortController();
        const response = await fetch(`${ctx.server.url}/threads/${threadId}/runs/stream`, {
          method: "POST", headers: { "content-type": "application/json" }, signal: abort.signal,
          body: JSON.stringify({ assistant_id: "slow", input: {}, ...(onDisconnect === undefined ? {} : { on_disconnect: onDisconnect }) }),
        });
        const reader = response.body!.getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/event: metadata/);
        abort.abort();
        await reader.cancel().catch(() => undefined);
        const [run] = await ctx.client.runs.list(threadId);
        await ctx.client.runs.join(threadId, run!.run_id);
        return (await ctx.client.runs.get(threadId, run!.run_id)).metadata?.agentrt_status;
      };
      expect(await streamThenLeave((await ctx.client.threads.create()).thread_id, "cancel")).toBe("CANCELED");
      expect(await streamThenLeave((await ctx.client.threads.create()).thread_id)).toBe("SUCCEEDED");
    });

    it("on_disconnect cancel on runs.wait cancels the run when the waiting client goes away", async () => {
      const thread = await ctx.client.threads.create();
      const abort = new AbortController();
      const waiting = fetch(`${ctx.server.url}/threads/${thread.thread_id}/runs/wait`, {
        method: "POST", headers: { "content-type": "application/json" }, signal: abort.signal,
        body: JSON.stringify({ assistant_id: "slow", input: {}, on_disconnect: "cancel" }),
      }).catch(() => undefined);
      // Leave once the run is on its way.
      while ((await ctx.client.runs.list(thread.thread_id)).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      abort.abort();
      await waiting;
      const [run] = await ctx.client.runs.list(thread.thread_id);
      await ctx.client.runs.join(thread.thread_id, run!.run_id);
      expect((await ctx.client.runs.get(thread.thread_id, run!.run_id)).metadata?.agentrt_status).toBe("CANCELED");
    });

    it("refuses a run from a checkpoint of a thread it does not name, leaving no thread behind", async () => {
      const before = await ctx.client.threads.count();
      const post = async (path: string, body: object) => (await fetch(`${ctx.server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).status;
      expect(await post("/runs/wait", { assistant_id: "slow", input: {}, checkpoint: { checkpoint_id: "nope" } })).toBe(422);
      expect(await post("/threads/made-on-the-fly/runs/wait", { assistant_id: "slow", input: {}, if_not_exists: "create", checkpoint_id: "nope" })).toBe(422);
      expect(await ctx.client.threads.count()).toBe(before);
    });

    it("refuses options it does not implement with 422, storing no run", async () => {
      const thread = await ctx.client.threads.create();
      const refused = [
        () => ctx.client.runs.create(thread.thread_id, "slow", { input: {}, interruptBefore: ["b"] }),
        () => ctx.client.runs.create(thread.thread_id, "slow", { input: {}, interruptAfter: "*" }),
        () => ctx.client.runs.create(thread.thread_id, "slow", { input: {}, afterSeconds: 5 }),
        () => ctx.client.runs.create(thread.thread_id, "slow", { input: {}, multitaskStrategy: "rollback" }),
      ];
      // Thunks: each request is sent only when awaited, so a refusal is never an unhandled rejection meanwhile.
      for (const attempt of refused) expect(await statusCode(attempt())).toBe(422);
      // goto / update move a run that waits for an answer (command.test.ts); this thread has none.
      for (const command of [{ update: { steps: ["x"] } }, { goto: "c" }]) {
        expect(await statusCode(ctx.client.runs.create(thread.thread_id, "slow", { command }))).toBe(409);
      }
      expect(await ctx.client.runs.list(thread.thread_id)).toEqual([]);
      // Empty breakpoint lists are what some clients always send: accepted.
      const run = await ctx.client.runs.wait(thread.thread_id, "slow", { input: {}, interruptBefore: [], interruptAfter: [] });
      expect(run).toMatchObject({ steps: ["a", "b", "c"] });
    });
  });
});
