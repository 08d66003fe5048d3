// Conformance: creation (defaults, validation) and every lifecycle transition, legal and illegal.
import { expect, it } from "vitest";
import { RUN_STATUSES, RUN_TRANSITIONS, Scheduler } from "../../../src/runs/index.js";
import { claim, createClaimed, rejection, storeTest, type OpenRunStore } from "./run-store-shared.js";

/** Creation and status changes. */
export function lifecycleConformance(open: OpenRunStore): void {
  it("creates a run with its defaults", storeTest(open, async ({ store, clock }) => {
    const run = await store.create({ graphId: "g", runId: "run_abc" });
    expect(run).toMatchObject({
      runId: "run_abc", threadId: "thread_abc", userId: "anonymous", status: "QUEUED", priority: 0, attempts: 0, maxAttempts: 3,
      deadlineAt: null, waitTtlMs: null, waitExpiresAt: null, availableAt: clock.now, budget: {}, lease: null, fencingToken: 0,
      input: null, result: null, pending: null, resume: null, metadata: {}, config: null, createdAt: clock.now, updatedAt: clock.now,
      startedAt: null, finishedAt: null, usage: { steps: 0, modelCalls: 0, tokens: 0, costUsd: 0 },
    });
    const full = await store.create({
      graphId: "g", userId: "ann", threadId: "t", priority: -2, maxAttempts: 1, deadlineAt: clock.now + 5000, waitTtlMs: 100,
      budget: { maxSteps: 3, maxCostUsd: 0.5 }, config: { configurable: { model: "m" }, recursionLimit: 7 }, availableAt: clock.now + 10,
    });
    expect(await store.get(full.runId)).toMatchObject({
      threadId: "t", priority: -2, maxAttempts: 1, deadlineAt: clock.now + 5000, waitTtlMs: 100, budget: { maxSteps: 3, maxCostUsd: 0.5 },
      config: { configurable: { model: "m" }, recursionLimit: 7 }, availableAt: clock.now + 10,
    });
  }));

  it("refuses bad input with BAD_INPUT and stores nothing", storeTest(open, async ({ store }) => {
    for (const bad of [
      { priority: 1.5 }, { maxAttempts: 0 }, { waitTtlMs: 0 }, { deadlineAt: Number.NaN }, { availableAt: 0.5 },
      { budget: { maxSteps: -1 } }, { config: { recursionLimit: 0 } },
    ]) {
      expect(await rejection(store.create({ graphId: "g", ...bad })), JSON.stringify(bad)).toMatchObject({ code: "BAD_INPUT" });
    }
    expect(await store.list()).toEqual([]);
    expect(await store.eventsAfter(0)).toEqual([]);
  }));

  it("records each change the holder makes, with its fields and event", storeTest(open, async ({ store, clock }) => {
    const { run, lease } = await createClaimed(store, { graphId: "g" });
    expect(run).toMatchObject({ status: "RUNNING", attempts: 1, fencingToken: 1, lease: { owner: "w1", expiresAt: clock.now + 1000 }, startedAt: clock.now });
    clock.advance(5);
    const waiting = await lease.transition("WAITING_INPUT", { pending: { question: "?" }, reason: "asks" });
    expect(waiting).toMatchObject({ status: "WAITING_INPUT", pending: { question: "?" }, lease: null, waitExpiresAt: null, fencingToken: 1 });
    const resumed = (await new Scheduler(store).claimRun(run.runId, { ...claim, resume: { answer: 1 } }))!;
    expect(resumed.run).toMatchObject({ status: "RUNNING", attempts: 1, fencingToken: 2, resume: { answer: 1 }, pending: null });
    const done = await resumed.lease.transition("SUCCEEDED", { result: { ok: true } });
    expect(done).toMatchObject({ status: "SUCCEEDED", result: { ok: true }, lease: null, finishedAt: clock.now, errorCode: null, resume: null });
    expect((await store.events(run.runId)).map((e) => [e.from, e.to, e.actor, e.fencingToken, e.reason])).toEqual([
      [null, "QUEUED", null, null, null],
      ["QUEUED", "RUNNING", "w1", 1, "claimed"],
      ["RUNNING", "WAITING_INPUT", "w1", 1, "asks"],
      ["WAITING_INPUT", "RUNNING", "w1", 2, "claimed to resume"],
      ["RUNNING", "SUCCEEDED", "w1", 2, null],
    ]);
  }));

  it("fails, retries after a delay and expires runs as the lifecycle allows", storeTest(open, async ({ store, clock }) => {
    const failing = await createClaimed(store);
    expect(await failing.lease.transition("FAILED", { errorCode: "BOOM", errorMessage: "it broke" })).toMatchObject({ status: "FAILED", errorCode: "BOOM", errorMessage: "it broke" });
    const retrying = await createClaimed(store);
    const retried = await retrying.lease.retry({ delayMs: 100, errorCode: "FLAKY" });
    expect(retried).toMatchObject({ status: "RETRYING", availableAt: clock.now + 100, errorCode: "FLAKY", lease: null });
    const scheduler = new Scheduler(store);
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    clock.advance(100);
    expect((await scheduler.claimNext(claim))?.run).toMatchObject({ runId: retried.runId, attempts: 2, fencingToken: 2 });
    const queued = await store.create({ graphId: "g" });
    expect(await store.transition(queued.runId, "EXPIRED", { errorCode: "DEADLINE_EXCEEDED" })).toMatchObject({ status: "EXPIRED", finishedAt: clock.now });
    const released = await createClaimed(store);
    expect(await released.lease.release()).toMatchObject({ status: "RETRYING", attempts: 0, availableAt: clock.now });
  }));

  it("refuses every transition the lifecycle does not allow, changing nothing", storeTest(open, async ({ store }) => {
    const queued = await store.create({ graphId: "g" });
    for (const to of RUN_STATUSES.filter((s) => !RUN_TRANSITIONS.QUEUED.includes(s))) {
      expect(await rejection(store.transition(queued.runId, to)), to).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    }
    const done = await createClaimed(store);
    await done.lease.transition("SUCCEEDED");
    for (const to of RUN_STATUSES) expect(await rejection(store.transition(done.run.runId, to)), to).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    expect(await rejection(new Scheduler(store).claimRun(done.run.runId, claim))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    expect(await rejection(store.resume(queued.runId, { resume: 1 }))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
    expect(await rejection(store.transition("run_missing", "CANCELED"))).toMatchObject({ code: "UNKNOWN_RUN" });
    expect((await store.get(queued.runId)).status).toBe("QUEUED");
    expect(await store.events(queued.runId)).toHaveLength(1);
    expect(await store.events(done.run.runId)).toHaveLength(3);
  }));

  it("revokes the holder's lease when someone else moves a RUNNING run", storeTest(open, async ({ store, other }) => {
    const { run, lease } = await createClaimed(store);
    expect(await other.transition(run.runId, "EXPIRED", { errorCode: "DEADLINE_EXCEEDED", actor: "ops" })).toMatchObject({ status: "EXPIRED", lease: null });
    expect(await rejection(lease.transition("SUCCEEDED"))).toMatchObject({ code: "LEASE_LOST", reason: "deadline-expired" });
    expect((await store.events(run.runId)).at(-1)).toMatchObject({ from: "RUNNING", to: "EXPIRED", actor: "ops", errorCode: "DEADLINE_EXCEEDED" });
  }));
}
