// The run store's behaviour through the RunStore interface alone, for every backend: each backend's test file
// calls describeRunStoreConformance with a function opening a fresh store (and a second one on the same database,
// as another process would have) on a hand-driven clock. The parts: lifecycle, claims, leases and fencing, queries.
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../../src/runs/index.js";
import { claimConformance } from "./run-store-claims.js";
import { idempotencyConformance } from "./run-store-idempotency.js";
import { leaseConformance } from "./run-store-leases.js";
import { lifecycleConformance } from "./run-store-lifecycle.js";
import { queryConformance } from "./run-store-queries.js";
import { claim, rejection, storeTest, type OpenedRunStore } from "./run-store-shared.js";

export type { OpenedRunStore } from "./run-store-shared.js";

/** The run store's conformance suite, run on the backend `open` gives. */
export function describeRunStoreConformance(name: string, open: () => Promise<OpenedRunStore>): void {
  const withStore = (fn: (opened: OpenedRunStore) => Promise<void>) => storeTest(open, fn);

  describe(`RunStore conformance: ${name}`, () => {
    describe("lifecycle", () => lifecycleConformance(open));
    describe("claims", () => claimConformance(open));
    describe("leases and fencing", () => leaseConformance(open));
    describe("waits, events and reads", () => queryConformance(open));
    describe("idempotency keys and conditional cancels", () => idempotencyConformance(open));

    it("creates a QUEUED run with its first event and reads it back", withStore(async ({ store }) => {
      const run = await store.create({ graphId: "g", userId: "ann", input: { a: 1 }, metadata: { m: true } });
      expect(await store.get(run.runId)).toMatchObject({ status: "QUEUED", graphId: "g", userId: "ann", input: { a: 1 }, metadata: { m: true } });
      expect((await store.events(run.runId)).map((e) => [e.from, e.to])).toEqual([[null, "QUEUED"]]);
      expect(await store.find("run_missing")).toBeUndefined();
      expect(await rejection(store.get("run_missing"))).toMatchObject({ code: "UNKNOWN_RUN" });
      expect(await rejection(store.create({ graphId: "g", runId: run.runId }))).toMatchObject({ code: "BAD_INPUT" });
    }));

    it("refuses an illegal transition and changes nothing", withStore(async ({ store }) => {
      const { runId } = await store.create({ graphId: "g" });
      expect(await rejection(store.transition(runId, "SUCCEEDED"))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
      expect(await rejection(store.transition(runId, "RUNNING"))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
      expect((await store.get(runId)).status).toBe("QUEUED");
      expect(await store.events(runId)).toHaveLength(1);
    }));

    it("gives a run to one of two concurrent claimers", withStore(async ({ store, other }) => {
      const { runId } = await store.create({ graphId: "g" });
      const claims = await Promise.all([
        new Scheduler(store).claimNext({ workerId: "a", leaseMs: 1000 }),
        new Scheduler(other).claimNext({ workerId: "b", leaseMs: 1000 }),
      ]);
      expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
      expect((await store.get(runId)).status).toBe("RUNNING");
      expect((await store.events(runId)).filter((e) => e.to === "RUNNING")).toHaveLength(1);
    }));

    it("claims by priority, then age, within the caps", withStore(async ({ store, clock }) => {
      const low = await store.create({ graphId: "g", userId: "ann" });
      clock.advance(1);
      const high = await store.create({ graphId: "g", userId: "ann", priority: 5 });
      clock.advance(1);
      const bob = await store.create({ graphId: "g", userId: "bob" });
      const scheduler = new Scheduler(store, { maxRunningPerUser: 1 });
      expect((await scheduler.claimNext(claim))?.run.runId).toBe(high.runId);
      expect((await scheduler.claimNext(claim))?.run.runId).toBe(bob.runId);
      expect(await scheduler.claimNext(claim)).toBeUndefined();
      expect((await store.get(low.runId)).status).toBe("QUEUED");
    }));

    it("runs a thread's runs one at a time, in creation order", withStore(async ({ store, clock }) => {
      const first = await store.create({ graphId: "g", threadId: "t" });
      clock.advance(1);
      const second = await store.create({ graphId: "g", threadId: "t", priority: 9 });
      const scheduler = new Scheduler(store);
      const claimed = (await scheduler.claimNext(claim))!;
      expect(claimed.run.runId).toBe(first.runId);
      expect(await scheduler.claimRun(second.runId, claim)).toBeUndefined();
      await claimed.lease.transition("SUCCEEDED", { result: 1 });
      expect((await scheduler.claimNext(claim))?.run.runId).toBe(second.runId);
    }));

    it("refuses a stale token once another worker took the run over after its lease expired", withStore(async ({ store, other, clock }) => {
      const { runId } = await store.create({ graphId: "g" });
      const stale = (await new Scheduler(store).claimNext(claim))!;
      clock.advance(1000);
      const taken = (await new Scheduler(other).claimNext({ workerId: "w2", leaseMs: 1000 }))!;
      expect(taken.run).toMatchObject({ runId, attempts: 2, fencingToken: stale.lease.token + 1 });
      expect(await rejection(stale.lease.transition("SUCCEEDED"))).toMatchObject({ code: "LEASE_LOST", reason: "taken-over" });
      expect(stale.lease.lost).toBe(true);
      expect(await rejection(store.addUsage(runId, stale.lease.token, { steps: 1 }))).toMatchObject({ code: "LEASE_LOST" });
      await taken.lease.transition("SUCCEEDED", { result: "ok" });
      expect((await store.events(runId)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "RETRYING", "RUNNING", "SUCCEEDED"]);
    }));

    it("fails a run whose lease expired on its last attempt", withStore(async ({ store, clock }) => {
      const { runId } = await store.create({ graphId: "g", maxAttempts: 1 });
      await new Scheduler(store).claimNext(claim);
      clock.advance(1000);
      expect((await store.sweep()).map((r) => r.status)).toEqual(["FAILED"]);
      expect(await store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED", lease: null });
    }));

    it("counts usage under the lease, deferred usage included, and renews the lease", withStore(async ({ store, clock }) => {
      const { runId } = await store.create({ graphId: "g" });
      const { lease } = (await new Scheduler(store).claimNext(claim))!;
      lease.deferUsage({ steps: 1, tokens: 10 });
      expect(await lease.addUsage({ modelCalls: 1 })).toMatchObject({ steps: 1, tokens: 10, modelCalls: 1 });
      clock.advance(900);
      await lease.renew();
      expect(lease.expiresAt).toBe(clock.now + 1000);
      lease.deferUsage({ steps: 2 });
      await lease.transition("SUCCEEDED");
      expect((await store.get(runId)).usage).toMatchObject({ steps: 3, modelCalls: 1, tokens: 10 });
    }));

    it("expires a wait past its TTL and refuses to resume it", withStore(async ({ store, clock }) => {
      const { runId } = await store.create({ graphId: "g", waitTtlMs: 500 });
      const { lease } = (await new Scheduler(store).claimNext(claim))!;
      await lease.transition("WAITING_APPROVAL", { pending: [{ tool: "t" }] });
      clock.advance(499);
      expect(await store.expireOverdueWaits()).toEqual([]);
      clock.advance(1);
      expect(await rejection(store.resume(runId, { resume: { ok: true } }))).toMatchObject({ code: "RUN_NOT_WAITING" });
      expect((await store.expireWaitIfDue(runId)).status).toBe("EXPIRED");
      expect((await store.get(runId)).errorCode).toBe("WAIT_EXPIRED");
    }));

    it("resumes a waiting run for a worker, only from the state it was checked in, and cancels", withStore(async ({ store }) => {
      const { runId } = await store.create({ graphId: "g" });
      const { lease } = (await new Scheduler(store).claimNext(claim))!;
      const waiting = await lease.transition("WAITING_INPUT", { pending: { q: "?" } });
      const expect1 = { status: waiting.status, fencingToken: waiting.fencingToken };
      expect(await rejection(store.resume(runId, { resume: 1, expect: { ...expect1, fencingToken: 99 } }))).toMatchObject({ code: "RUN_NOT_WAITING" });
      expect(await store.resume(runId, { resume: { answer: 42 }, expect: expect1 })).toMatchObject({ status: "QUEUED", resume: { answer: 42 } });
      expect(await store.cancel(runId, { actor: "ops", reason: "no longer needed" })).toMatchObject({ status: "CANCELED", errorMessage: "canceled by ops: no longer needed" });
      expect(await rejection(store.cancel(runId))).toMatchObject({ code: "RUN_FINISHED" });
    }));

    it("creates and claims in one step, and lists, tails and picks threads' newest runs", withStore(async ({ store, clock }) => {
      const caps = { maxRunning: Infinity, maxRunningPerUser: Infinity, userLimits: {} };
      const { run, claimed } = await store.createAndClaim({ graphId: "g", threadId: "t1" }, { ...claim, caps });
      expect(claimed).toMatchObject({ runId: run.runId, status: "RUNNING", lease: { owner: "w1" } });
      clock.advance(1);
      const newer = await store.create({ graphId: "g", threadId: "t1" });
      expect((await store.list({ threadId: "t1", order: "newest" })).map((r) => r.runId)).toEqual([newer.runId, run.runId]);
      expect((await store.latestOfThreads(["t1", "t2"])).get("t1")?.runId).toBe(newer.runId);
      const all = await store.eventsAfter(0);
      expect(all.map((e) => e.eventId)).toEqual([...all.map((e) => e.eventId)].sort((a, b) => a - b));
      expect(await store.eventsAfter(all.at(-2)!.eventId)).toEqual([all.at(-1)]);
      expect(await store.hasPendingWork()).toBe(true);
    }));
  });
}
