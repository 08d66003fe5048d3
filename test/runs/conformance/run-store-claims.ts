// Conformance: claim order, availability, the caps (global, per user, per-user overrides), one run at a time per
// thread, claims of one given run (resume, expect) and pending work.
import { expect, it } from "vitest";
import { Scheduler } from "../../../src/runs/index.js";
import { claim, createClaimed, noCaps, rejection, storeTest, type OpenRunStore } from "./run-store-shared.js";

/** Claims. */
export function claimConformance(open: OpenRunStore): void {
  it("claims QUEUED and RETRYING runs by priority then age, never before they are available", storeTest(open, async ({ store, clock }) => {
    const later = await store.create({ graphId: "g", priority: 9, availableAt: clock.now + 50 });
    const old = await store.create({ graphId: "g" });
    clock.advance(1);
    const retried = await createClaimed(store, { graphId: "g", priority: 1 });
    await retried.lease.retry({ delayMs: 0 });
    clock.advance(1);
    const young = await store.create({ graphId: "g", priority: 1 });
    const scheduler = new Scheduler(store);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push((await scheduler.claimNext(claim))!.run.runId);
    expect(order).toEqual([retried.run.runId, young.runId, old.runId]);
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    clock.advance(50);
    expect((await scheduler.claimNext(claim))?.run.runId).toBe(later.runId);
  }));

  it("keeps the global cap, per-user caps and per-user overrides, counting held leases", storeTest(open, async ({ store, other }) => {
    for (const userId of ["ann", "ann", "ann", "bob", "bob", "cat"]) await store.create({ graphId: "g", userId });
    const scheduler = new Scheduler(other, { maxRunning: 4, maxRunningPerUser: 1, userLimits: { ann: 2 } });
    const claimed = [];
    for (let i = 0; i < 6; i++) {
      const next = await scheduler.claimNext(claim);
      if (next !== undefined) claimed.push(next);
    }
    expect(claimed.map((c) => c.run.userId).sort()).toEqual(["ann", "ann", "bob", "cat"]);
    // A backoff in the holder's process keeps its slot, and its run is not claimable meanwhile.
    const ann = claimed.find((c) => c.run.userId === "ann")!;
    expect(await ann.lease.startBackoff("waiting for a tool")).toMatchObject({ status: "RETRYING", lease: { owner: "w1" } });
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    expect(await new Scheduler(store).claimRun(ann.run.runId, claim)).toBeUndefined();
    expect(await ann.lease.endBackoff("tool again")).toMatchObject({ status: "RUNNING", fencingToken: ann.lease.token });
    await claimed.find((c) => c.run.userId === "bob")!.lease.transition("SUCCEEDED");
    expect((await scheduler.claimNext(claim))?.run.userId).toBe("bob");
    expect(await scheduler.claimNext(claim)).toBeUndefined();
  }));

  it("claims one given run only within the caps, and not while it runs elsewhere", storeTest(open, async ({ store }) => {
    const first = await createClaimed(store, { graphId: "g", userId: "ann" });
    const second = await store.create({ graphId: "g", userId: "ann" });
    expect(await new Scheduler(store).claimRun(first.run.runId, claim)).toBeUndefined();
    expect(await new Scheduler(store, { maxRunning: 1 }).claimRun(second.runId, claim)).toBeUndefined();
    expect(await new Scheduler(store, { maxRunningPerUser: 1 }).claimRun(second.runId, claim)).toBeUndefined();
    expect(await new Scheduler(store, { maxRunningPerUser: 1, userLimits: { ann: 2 } }).claimRun(second.runId, claim)).toBeDefined();
    expect(await rejection(new Scheduler(store).claimRun("run_missing", claim))).toMatchObject({ code: "UNKNOWN_RUN" });
  }));

  it("holds a thread's later runs back while an older one is unfinished, waiting included", storeTest(open, async ({ store, clock }) => {
    const first = await createClaimed(store, { graphId: "g", threadId: "t" });
    clock.advance(1);
    const second = await store.create({ graphId: "g", threadId: "t", priority: 5 });
    await store.create({ graphId: "g", threadId: "u" }).then((run) => store.cancel(run.runId));
    await first.lease.transition("WAITING_APPROVAL", { pending: [] });
    expect(await store.hasPendingWork()).toBe(false);
    expect(await new Scheduler(store).claimNext(claim)).toBeUndefined();
    expect(await new Scheduler(store).claimRun(second.runId, claim)).toBeUndefined();
    expect(await store.createAndClaim({ graphId: "g", threadId: "t" }, { ...claim, caps: noCaps })).toMatchObject({ claimed: undefined });
    await store.cancel(first.run.runId);
    expect(await store.hasPendingWork()).toBe(true);
    expect((await new Scheduler(store).claimNext(claim))?.run.runId).toBe(second.runId);
  }));

  it("resumes a waiting run straight into RUNNING, only from the state it was checked in", storeTest(open, async ({ store }) => {
    const { run, lease } = await createClaimed(store);
    const waiting = await lease.transition("WAITING_APPROVAL", { pending: [{ tool: "t" }] });
    const expected = { status: waiting.status, fencingToken: waiting.fencingToken };
    const scheduler = new Scheduler(store);
    expect(await rejection(scheduler.claimRun(run.runId, { ...claim, resume: [1], expect: { ...expected, status: "WAITING_INPUT" } }))).toMatchObject({ code: "RUN_NOT_WAITING" });
    expect((await store.get(run.runId)).status).toBe("WAITING_APPROVAL");
    const resumed = (await scheduler.claimRun(run.runId, { ...claim, resume: [{ type: "approve" }], expect: expected }))!;
    expect(resumed.run).toMatchObject({ status: "RUNNING", attempts: 1, resume: [{ type: "approve" }], pending: null });
    expect(await rejection(scheduler.claimRun(run.runId, { ...claim, resume: [], expect: expected }))).toMatchObject({ code: "RUN_NOT_WAITING" });
  }));

  it("creates and claims in one commit, or only creates when a cap holds the run back", storeTest(open, async ({ store }) => {
    await createClaimed(store);
    const held = await store.createAndClaim({ graphId: "g", runId: "run_held" }, { ...claim, caps: { ...noCaps, maxRunning: 1 } });
    expect(held.claimed).toBeUndefined();
    expect(held.run).toMatchObject({ runId: "run_held", status: "QUEUED" });
    expect(await rejection(store.createAndClaim({ graphId: "g", runId: "run_held" }, { ...claim, caps: noCaps }))).toMatchObject({ code: "BAD_INPUT" });
    expect(await store.list({ status: "QUEUED" })).toHaveLength(1);
  }));

  it("stores a run created and claimed in one commit as a create then a claim leave it, record and events", storeTest(open, async ({ store, clock }) => {
    const input = { graphId: "g", userId: "ann", priority: 2, input: { messages: ["hi"] }, metadata: { m: 1 }, budget: { maxSteps: 9 }, deadlineAt: clock.now + 60_000, waitTtlMs: 500 };
    const both = await store.createAndClaim({ ...input, runId: "run_both", threadId: "t_both" }, { ...claim, caps: noCaps });
    const created = await store.create({ ...input, runId: "run_apart", threadId: "t_apart" });
    const apart = (await new Scheduler(store).claimRun(created.runId, claim))!.run;
    const same = (run: Record<string, unknown>) => ({ ...run, runId: "", threadId: "" });
    expect(same({ ...both.claimed })).toEqual(same({ ...apart }));
    expect(same({ ...both.run })).toEqual(same({ ...created }));
    expect(same({ ...(await store.get("run_both")) })).toEqual(same({ ...(await store.get("run_apart")) }));
    const events = async (runId: string) => (await store.events(runId)).map(({ eventId: _, runId: __, ...e }) => e);
    expect(await events("run_both")).toEqual(await events("run_apart"));
    // Held back by an older unfinished run of its thread, or by a deadline already due (expired by the claim's sweep).
    clock.advance(1);
    expect(await store.createAndClaim({ graphId: "g", threadId: "t_both", runId: "run_behind" }, { ...claim, caps: noCaps })).toMatchObject({ claimed: undefined, run: { status: "QUEUED" } });
    expect(await rejection(store.createAndClaim({ graphId: "g", runId: "run_due", deadlineAt: clock.now }, { ...claim, caps: noCaps }))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    expect(await store.find("run_due")).toBeUndefined();
  }));
}
