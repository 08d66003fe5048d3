// The newest run of many threads in one statement (threads.search/count by status): per thread its newest run by
// creation, whatever its priority; threads without runs are absent; a held resume is claimable only by id.
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../src/runs/index.js";
import { freshStore } from "./helpers.js";

describe("SqliteRunStore.latestOfThreads", () => {
  it("gives each thread's newest run, skips threads without runs, and takes any number of ids", async () => {
    const { store, clock } = freshStore();
    await store.create({ graphId: "g", threadId: "t1", priority: 5 });
    clock.advance(1);
    const newest = await store.create({ graphId: "g", threadId: "t1" });
    const other = await store.create({ graphId: "g", threadId: "t2" });
    const latest = await store.latestOfThreads(["t1", "t2", "t3", ...Array.from({ length: 40_000 }, (_, i) => `none_${i}`)]);
    expect([...latest.keys()].sort()).toEqual(["t1", "t2"]);
    expect(latest.get("t1")?.runId).toBe(newest.runId);
    expect(latest.get("t2")?.runId).toBe(other.runId);
    expect((await store.latestOfThreads([])).size).toBe(0);
  });

  it("a resume held back with availableAt is not claimed by a worker, only by id", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const run = await store.create({ graphId: "g" });
    const claimed = await scheduler.claimRun(run.runId, { workerId: "w", leaseMs: 10_000 });
    const waiting = await claimed!.lease.transition("WAITING_INPUT", { pending: [] });
    await store.resume(run.runId, { resume: { answer: 1 }, expect: { status: waiting.status, fencingToken: waiting.fencingToken }, availableAt: clock.now + 30_000 });
    expect(await scheduler.claimNext({ workerId: "other", leaseMs: 10_000 })).toBeUndefined();
    expect((await scheduler.claimRun(run.runId, { workerId: "here", leaseMs: 10_000 }))?.run).toMatchObject({ status: "RUNNING", resume: { answer: 1 } });
  });
});
