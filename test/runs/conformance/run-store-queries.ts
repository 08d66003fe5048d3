// Conformance: cancel, resume, wait and deadline expiry, the event log, reads (list, latestOfThreads) and the change
// stamp another process's writes move.
import { expect, it } from "vitest";
import { Scheduler } from "../../../src/runs/index.js";
import { claim, createClaimed, rejection, storeTest, type OpenRunStore } from "./run-store-shared.js";

/** Waits, expiry, events and reads. */
export function queryConformance(open: OpenRunStore): void {
  it("cancels unfinished runs, revoking a holder's lease, and refuses finished ones", storeTest(open, async ({ store, other }) => {
    const queued = await store.create({ graphId: "g" });
    expect(await store.cancel(queued.runId)).toMatchObject({ status: "CANCELED", errorCode: "CANCELED", errorMessage: "canceled" });
    const { run, lease } = await createClaimed(store);
    expect(await other.cancel(run.runId, { actor: "api", reason: "canceled" })).toMatchObject({ status: "CANCELED", errorMessage: "canceled by api", lease: null });
    expect(await rejection(lease.check())).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
    expect((await store.events(run.runId)).at(-1)).toMatchObject({ from: "RUNNING", to: "CANCELED", actor: "api", errorCode: "CANCELED" });
    expect(await rejection(store.cancel(run.runId))).toMatchObject({ code: "RUN_FINISHED" });
    expect(await rejection(store.cancel("run_missing"))).toMatchObject({ code: "UNKNOWN_RUN" });
  }));

  it("resumes into the queue, held for its process until availableAt, with its wait cleared", storeTest(open, async ({ store, clock }) => {
    const { run, lease } = await createClaimed(store, { graphId: "g", waitTtlMs: 1000 });
    const waiting = await lease.transition("WAITING_INPUT", { pending: { q: 1 } });
    expect(waiting.waitExpiresAt).toBe(clock.now + 1000);
    const queued = await store.resume(run.runId, { resume: { a: 2 }, actor: "cli", availableAt: clock.now + 500 });
    expect(queued).toMatchObject({ status: "QUEUED", resume: { a: 2 }, pending: null, waitExpiresAt: null, availableAt: clock.now + 500 });
    expect((await store.events(run.runId)).at(-1)).toMatchObject({ from: "WAITING_INPUT", to: "QUEUED", actor: "cli" });
    expect(await new Scheduler(store).claimNext(claim)).toBeUndefined();
    const resumed = (await new Scheduler(store).claimRun(run.runId, claim))!;
    expect(resumed.run).toMatchObject({ attempts: 1, resume: { a: 2 } });
    expect((await store.events(run.runId)).at(-1)?.reason).toBe("claimed to resume");
    expect(await rejection(store.resume(run.runId, { resume: 1 }))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
  }));

  it("expires overdue waits and deadlines in every sweep, claims included", storeTest(open, async ({ store, other, clock }) => {
    const approval = await createClaimed(store, { graphId: "g", waitTtlMs: 100 });
    await approval.lease.transition("WAITING_APPROVAL", { pending: [] });
    const queued = await store.create({ graphId: "g", deadlineAt: clock.now + 100 });
    const running = await createClaimed(store, { graphId: "g", deadlineAt: clock.now + 100 });
    expect(await store.expireWaitIfDue(approval.run.runId)).toMatchObject({ status: "WAITING_APPROVAL" });
    clock.advance(100);
    expect(await new Scheduler(other).claimNext(claim)).toBeUndefined();
    expect(await store.get(approval.run.runId)).toMatchObject({ status: "EXPIRED", errorCode: "WAIT_EXPIRED", errorMessage: "no approval within the wait TTL of 100 ms" });
    for (const runId of [queued.runId, running.run.runId]) expect(await store.get(runId)).toMatchObject({ status: "EXPIRED", errorCode: "DEADLINE_EXCEEDED", lease: null });
    expect((await store.events(running.run.runId)).at(-1)).toMatchObject({ from: "RUNNING", to: "EXPIRED", reason: "deadline passed" });
    expect(await rejection(running.lease.transition("SUCCEEDED"))).toMatchObject({ code: "LEASE_LOST", reason: "deadline-expired" });
    expect(await store.sweep()).toEqual([]);
    expect(await rejection(store.expireWaitIfDue("run_missing"))).toMatchObject({ code: "UNKNOWN_RUN" });
  }));

  it("expires only overdue waits with expireOverdueWaits", storeTest(open, async ({ store, clock }) => {
    const input = await createClaimed(store, { graphId: "g", waitTtlMs: 10 });
    await input.lease.transition("WAITING_INPUT", { pending: {} });
    await createClaimed(store, { graphId: "g", deadlineAt: clock.now + 10 });
    clock.advance(10);
    expect((await store.expireOverdueWaits()).map((r) => [r.runId, r.status, r.errorCode])).toEqual([[input.run.runId, "EXPIRED", "WAIT_EXPIRED"]]);
    expect(await store.list({ status: "RUNNING" })).toHaveLength(1);
  }));

  it("tails the event log, for every run or one, in pages", storeTest(open, async ({ store }) => {
    const a = await createClaimed(store);
    const b = await store.create({ graphId: "g" });
    await a.lease.transition("SUCCEEDED");
    const all = await store.eventsAfter(0);
    expect(all.map((e) => [e.runId, e.to])).toEqual([[a.run.runId, "QUEUED"], [a.run.runId, "RUNNING"], [b.runId, "QUEUED"], [a.run.runId, "SUCCEEDED"]]);
    expect(await store.eventsAfter(0, { limit: 2 })).toEqual(all.slice(0, 2));
    expect(await store.eventsAfter(all[0]!.eventId, { runId: a.run.runId })).toEqual([all[1], all[3]]);
    expect(await store.eventsAfter(all[3]!.eventId)).toEqual([]);
  }));

  it("lists by filter and order, and picks the newest run of each thread", storeTest(open, async ({ store, clock }) => {
    const a1 = await store.create({ graphId: "g", userId: "ann", threadId: "ta" });
    clock.advance(1);
    const b1 = await store.create({ graphId: "h", userId: "bob", threadId: "tb", priority: 3 });
    clock.advance(1);
    const a2 = await store.create({ graphId: "g", userId: "ann", threadId: "ta" });
    await store.cancel(a1.runId);
    const ids = (runs: { runId: string }[]) => runs.map((r) => r.runId);
    expect(ids(await store.list())).toEqual([b1.runId, a1.runId, a2.runId]);
    expect(ids(await store.list({ order: "newest", limit: 2 }))).toEqual([a2.runId, b1.runId]);
    expect(ids(await store.list({ status: ["QUEUED"], userId: "ann" }))).toEqual([a2.runId]);
    expect(ids(await store.list({ status: "CANCELED" }))).toEqual([a1.runId]);
    expect(ids(await store.list({ graphId: "h", threadId: "tb" }))).toEqual([b1.runId]);
    const latest = await store.latestOfThreads(["ta", "tb", "tc"]);
    expect([...latest].map(([thread, run]) => [thread, run.runId]).sort()).toEqual([["ta", a2.runId], ["tb", b1.runId]]);
    expect(await store.latestOfThreads([])).toEqual(new Map());
  }));

  it("moves its change stamp on another store's writes, and only then", storeTest(open, async ({ store, other }) => {
    const stamp = await store.changeStamp();
    const version = await store.dataVersion();
    expect(stamp).toBeDefined();
    expect(await store.changeStamp()).toBe(stamp);
    const run = await other.create({ graphId: "g" });
    const afterCreate = await store.changeStamp();
    expect(afterCreate).not.toBe(stamp);
    expect(await store.dataVersion()).not.toBe(version);
    await other.cancel(run.runId);
    expect(await store.changeStamp()).not.toBe(afterCreate);
  }));
}
