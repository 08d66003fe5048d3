import { describe, expect, it } from "vitest";
import { StorageError } from "../../src/errors.js";
import { LeaseLostError, Scheduler, applyOutcome, defaultLeaseMs, outcomeOfError } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const LEASE = 1000;

async function setup(options: { maxAttempts?: number; deadlineAt?: number } = {}) {
  const ctx = freshStore();
  const scheduler = new Scheduler(ctx.store);
  const { runId } = await ctx.store.create({ graphId: "g", ...options });
  const first = (await scheduler.claimNext({ workerId: "A", leaseMs: LEASE }))!;
  return { ...ctx, scheduler, runId, first };
}

describe("lease expiry and takeover", () => {
  it("keeps the run while the lease is valid", async () => {
    const { clock, scheduler, first } = await setup();
    clock.advance(LEASE - 1);
    expect(await scheduler.claimNext({ workerId: "B", leaseMs: LEASE })).toBeUndefined();
    expect((await first.lease.check()).lease?.owner).toBe("A");
  });

  it("hands an expired lease's run to another worker, counting the attempt", async () => {
    const { store, clock, scheduler, runId } = await setup();
    clock.advance(LEASE);
    const second = (await scheduler.claimNext({ workerId: "B", leaseMs: LEASE }))!;
    expect(second.run).toMatchObject({ runId, status: "RUNNING", attempts: 2, fencingToken: 2, lease: { owner: "B" } });
    expect((await store.events(runId)).slice(1).map((e) => [e.from, e.to, e.actor, e.errorCode])).toEqual([
      ["QUEUED", "RUNNING", "A", null],
      ["RUNNING", "RETRYING", null, "LEASE_LOST"],
      ["RETRYING", "RUNNING", "B", null],
    ]);
  });

  it("fences the old holder out: its writes fail with LEASE_LOST and change nothing", async () => {
    const { store, clock, scheduler, runId, first } = await setup();
    clock.advance(LEASE + 1);
    const second = (await scheduler.claimNext({ workerId: "B", leaseMs: LEASE }))!;
    const before = { run: await store.get(runId), events: await store.events(runId) };
    const error = await thrown(() => first.lease.transition("SUCCEEDED", { result: "stale" }));
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ code: "LEASE_LOST", reason: "taken-over", status: "RUNNING" });
    expect(await thrown(() => first.lease.addUsage({ steps: 1 }))).toBeInstanceOf(LeaseLostError);
    expect(await thrown(() => first.lease.renew())).toBeInstanceOf(LeaseLostError);
    expect(await thrown(() => store.transition(runId, "FAILED", { fence: first.lease.token }))).toBeInstanceOf(LeaseLostError);
    expect({ run: await store.get(runId), events: await store.events(runId) }).toEqual(before);
    expect(first.lease.signal.aborted).toBe(true);
    expect(first.lease.signal.reason).toBeInstanceOf(LeaseLostError);
    await second.lease.transition("SUCCEEDED", { result: "fresh" });
    expect(await store.get(runId)).toMatchObject({ status: "SUCCEEDED", result: "fresh" });
  });

  it("a heartbeat keeps the lease alive past its first expiry", async () => {
    const { clock, scheduler, first } = await setup();
    for (let i = 0; i < 5; i++) {
      clock.advance(LEASE * 0.6);
      await first.lease.renew();
      expect(await scheduler.claimNext({ workerId: "B", leaseMs: LEASE })).toBeUndefined();
    }
    expect(first.lease.expiresAt).toBe(clock.now + LEASE);
    expect((await first.lease.check()).attempts).toBe(1);
  });

  it("a holder that renews after expiry but before a takeover keeps its lease", async () => {
    const { clock, first } = await setup();
    clock.advance(LEASE * 2);
    await first.lease.renew();
    expect((await first.lease.check()).status).toBe("RUNNING");
  });

  it("fails the run once its attempts are used up", async () => {
    const { store, clock, scheduler, runId } = await setup({ maxAttempts: 2 });
    clock.advance(LEASE);
    expect((await scheduler.claimNext({ workerId: "B", leaseMs: LEASE }))?.run.attempts).toBe(2);
    clock.advance(LEASE);
    expect(await scheduler.claimNext({ workerId: "C", leaseMs: LEASE })).toBeUndefined();
    expect(await store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED", lease: null });
  });

  it("does not count resumes after a person answered: a crash after approvals still has its attempts", async () => {
    const { store, clock, scheduler, runId, first } = await setup({ maxAttempts: 2 });
    await first.lease.transition("WAITING_APPROVAL", { pending: [{ action_id: "a1" }] });
    // Resumed here at once (agentrt approve) …
    const resumed = (await scheduler.claimRun(runId, { workerId: "cli", leaseMs: LEASE, resume: [{ action_id: "a1" }] }))!;
    expect(resumed.run).toMatchObject({ attempts: 1, fencingToken: 2 });
    await resumed.lease.transition("WAITING_APPROVAL", { pending: [{ action_id: "a2" }] });
    // … or queued with its resume for a worker (approve --queue, the server with worker processes).
    await store.resume(runId, { resume: [{ action_id: "a2" }] });
    const queued = (await scheduler.claimNext({ workerId: "W", leaseMs: LEASE }))!;
    expect(queued.run).toMatchObject({ runId, attempts: 1, fencingToken: 3 });
    expect((await store.events(runId)).at(-1)?.reason).toBe("claimed to resume");
    // That worker dies: recovery is attempt 2 of 2, not a failure.
    clock.advance(LEASE);
    const recovered = (await scheduler.claimNext({ workerId: "B", leaseMs: LEASE }))!;
    expect(recovered.run).toMatchObject({ runId, status: "RUNNING", attempts: 2 });
    expect((await store.events(runId)).at(-1)?.reason).toBe("claimed for attempt 2");
  });

  it("does not count an attempt a stopping worker handed back", async () => {
    const { store, scheduler, runId, first } = await setup({ maxAttempts: 1 });
    expect(await first.lease.release()).toMatchObject({ status: "RETRYING", attempts: 0 });
    const again = (await scheduler.claimNext({ workerId: "B", leaseMs: LEASE }))!;
    expect(again.run).toMatchObject({ runId, attempts: 1, fencingToken: 2 });
    // Still its one attempt: a retry now is refused as exhausted, as it would have been without the hand-back.
    await again.lease.retry({ errorCode: "TOOL_TIMEOUT" });
    expect(await store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED" });
  });

  it("lease.retry fails instead of retrying when attempts are used up", async () => {
    const { store, runId, first } = await setup({ maxAttempts: 1 });
    await first.lease.retry({ errorCode: "TOOL_TIMEOUT" });
    expect(await store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED" });
  });
});

describe("lease loss reasons", () => {
  it("reports cancel to the holder's next heartbeat and aborts its signal", async () => {
    const { store, runId, first } = await setup();
    await store.cancel(runId, { actor: "cli" });
    expect(await thrown(() => first.lease.renew())).toMatchObject({ code: "LEASE_LOST", reason: "canceled", status: "CANCELED" });
    expect(first.lease.signal.reason).toMatchObject({ reason: "canceled" });
  });

  it("expires a run past its deadline, even while RUNNING", async () => {
    const { store, clock, scheduler, runId, first } = await setup({ deadlineAt: 1_700_000_000_000 + 5000 });
    clock.advance(5000);
    expect((await scheduler.sweepNow()).map((r) => r.status)).toEqual(["EXPIRED"]);
    expect(await store.get(runId)).toMatchObject({ status: "EXPIRED", errorCode: "DEADLINE_EXCEEDED" });
    expect(await thrown(() => first.lease.renew())).toMatchObject({ reason: "deadline-expired" });
  });

  it("release hands the run back for another worker at once", async () => {
    const { scheduler, runId, first } = await setup();
    expect((await first.lease.release()).status).toBe("RETRYING");
    expect((await scheduler.claimNext({ workerId: "B", leaseMs: LEASE }))?.run.runId).toBe(runId);
  });
});

describe("defaultLeaseMs", () => {
  it("reads AGENTRT_LEASE_MS and falls back to 30 s", async () => {
    expect(defaultLeaseMs({ AGENTRT_LEASE_MS: "300" })).toBe(300);
    expect(defaultLeaseMs({ AGENTRT_LEASE_MS: "nope" })).toBe(30_000);
    expect(defaultLeaseMs({})).toBe(30_000);
  });
});

describe("deferred usage", () => {
  it("is written with the lease's next write: a usage update, a check, or the outcome", async () => {
    const { store, runId, first } = await setup();
    first.lease.deferUsage({ steps: 1 });
    first.lease.deferUsage({ steps: 1 });
    expect((await store.get(runId)).usage.steps).toBe(0);
    expect(await first.lease.addUsage({ steps: 1, modelCalls: 1, tokens: 10 })).toMatchObject({ steps: 3, modelCalls: 1, tokens: 10 });
    first.lease.deferUsage({ steps: 1 });
    expect((await first.lease.check()).usage.steps).toBe(4);
    first.lease.deferUsage({ steps: 2 });
    expect((await first.lease.transition("SUCCEEDED")).usage).toMatchObject({ steps: 6, modelCalls: 1 });
  });

  it("is never written by a holder that lost the lease", async () => {
    const { store, runId, first } = await setup();
    first.lease.deferUsage({ steps: 5 });
    await store.cancel(runId);
    expect(await thrown(() => first.lease.check())).toBeInstanceOf(LeaseLostError);
    expect((await store.get(runId)).usage.steps).toBe(0);
  });
});

describe("a full disk does not use up a run's attempts", () => {
  it("stays RETRYING with STORAGE_FULL however many times the disk stops it, its attempts given back", async () => {
    const { store, clock, scheduler, runId, first } = await setup({ maxAttempts: 2 });
    const full = new StorageError("STORAGE_FULL", "database or disk is full");
    let claimed = first;
    for (let i = 0; i < 5; i++) {
      const run = await applyOutcome(claimed.lease, outcomeOfError(full, claimed.run.attempts));
      expect(run).toMatchObject({ status: "RETRYING", errorCode: "STORAGE_FULL", attempts: 0 });
      clock.advance(60_000);
      claimed = (await scheduler.claimNext({ workerId: "A", leaseMs: LEASE }))!;
      expect(claimed.run).toMatchObject({ runId, status: "RUNNING", attempts: 1 });
    }
    // Its own faults still count: two ordinary retries exhaust a run of two attempts.
    await claimed.lease.retry({ errorCode: "TOOL_TIMEOUT" });
    clock.advance(60_000);
    const last = (await scheduler.claimNext({ workerId: "A", leaseMs: LEASE }))!;
    expect(await last.lease.retry({ errorCode: "TOOL_TIMEOUT" })).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED" });
    expect((await store.get(runId)).status).toBe("FAILED");
  });
});
