import { describe, expect, it } from "vitest";
import { StorageError } from "../../src/errors.js";
import { LeaseLostError, Scheduler, applyOutcome, defaultLeaseMs, outcomeOfError } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const LEASE = 1000;

function setup(options: { maxAttempts?: number; deadlineAt?: number } = {}) {
  const ctx = freshStore();
  const scheduler = new Scheduler(ctx.store);
  const { runId } = ctx.store.create({ graphId: "g", ...options });
  const first = scheduler.claimNext({ workerId: "A", leaseMs: LEASE })!;
  return { ...ctx, scheduler, runId, first };
}

describe("lease expiry and takeover", () => {
  it("keeps the run while the lease is valid", () => {
    const { clock, scheduler, first } = setup();
    clock.advance(LEASE - 1);
    expect(scheduler.claimNext({ workerId: "B", leaseMs: LEASE })).toBeUndefined();
    expect(first.lease.check().lease?.owner).toBe("A");
  });

  it("hands an expired lease's run to another worker, counting the attempt", () => {
    const { store, clock, scheduler, runId } = setup();
    clock.advance(LEASE);
    const second = scheduler.claimNext({ workerId: "B", leaseMs: LEASE })!;
    expect(second.run).toMatchObject({ runId, status: "RUNNING", attempts: 2, fencingToken: 2, lease: { owner: "B" } });
    expect(store.events(runId).slice(1).map((e) => [e.from, e.to, e.actor, e.errorCode])).toEqual([
      ["QUEUED", "RUNNING", "A", null],
      ["RUNNING", "RETRYING", null, "LEASE_LOST"],
      ["RETRYING", "RUNNING", "B", null],
    ]);
  });

  it("fences the old holder out: its writes fail with LEASE_LOST and change nothing", () => {
    const { store, clock, scheduler, runId, first } = setup();
    clock.advance(LEASE + 1);
    const second = scheduler.claimNext({ workerId: "B", leaseMs: LEASE })!;
    const before = { run: store.get(runId), events: store.events(runId) };
    const error = thrown(() => first.lease.transition("SUCCEEDED", { result: "stale" }));
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error).toMatchObject({ code: "LEASE_LOST", reason: "taken-over", status: "RUNNING" });
    expect(thrown(() => first.lease.addUsage({ steps: 1 }))).toBeInstanceOf(LeaseLostError);
    expect(thrown(() => first.lease.renew())).toBeInstanceOf(LeaseLostError);
    expect(thrown(() => store.transition(runId, "FAILED", { fence: first.lease.token }))).toBeInstanceOf(LeaseLostError);
    expect({ run: store.get(runId), events: store.events(runId) }).toEqual(before);
    expect(first.lease.signal.aborted).toBe(true);
    expect(first.lease.signal.reason).toBeInstanceOf(LeaseLostError);
    second.lease.transition("SUCCEEDED", { result: "fresh" });
    expect(store.get(runId)).toMatchObject({ status: "SUCCEEDED", result: "fresh" });
  });

  it("a heartbeat keeps the lease alive past its first expiry", () => {
    const { clock, scheduler, first } = setup();
    for (let i = 0; i < 5; i++) {
      clock.advance(LEASE * 0.6);
      first.lease.renew();
      expect(scheduler.claimNext({ workerId: "B", leaseMs: LEASE })).toBeUndefined();
    }
    expect(first.lease.expiresAt).toBe(clock.now + LEASE);
    expect(first.lease.check().attempts).toBe(1);
  });

  it("a holder that renews after expiry but before a takeover keeps its lease", () => {
    const { clock, first } = setup();
    clock.advance(LEASE * 2);
    first.lease.renew();
    expect(first.lease.check().status).toBe("RUNNING");
  });

  it("fails the run once its attempts are used up", () => {
    const { store, clock, scheduler, runId } = setup({ maxAttempts: 2 });
    clock.advance(LEASE);
    expect(scheduler.claimNext({ workerId: "B", leaseMs: LEASE })?.run.attempts).toBe(2);
    clock.advance(LEASE);
    expect(scheduler.claimNext({ workerId: "C", leaseMs: LEASE })).toBeUndefined();
    expect(store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED", lease: null });
  });

  it("does not count resumes after a person answered: a crash after approvals still has its attempts", () => {
    const { store, clock, scheduler, runId, first } = setup({ maxAttempts: 2 });
    first.lease.transition("WAITING_APPROVAL", { pending: [{ action_id: "a1" }] });
    // Resumed here at once (agentrt approve) …
    const resumed = scheduler.claimRun(runId, { workerId: "cli", leaseMs: LEASE, resume: [{ action_id: "a1" }] })!;
    expect(resumed.run).toMatchObject({ attempts: 1, fencingToken: 2 });
    resumed.lease.transition("WAITING_APPROVAL", { pending: [{ action_id: "a2" }] });
    // … or queued with its resume for a worker (approve --queue, the server with worker processes).
    store.resume(runId, { resume: [{ action_id: "a2" }] });
    const queued = scheduler.claimNext({ workerId: "W", leaseMs: LEASE })!;
    expect(queued.run).toMatchObject({ runId, attempts: 1, fencingToken: 3 });
    expect(store.events(runId).at(-1)?.reason).toBe("claimed to resume");
    // That worker dies: recovery is attempt 2 of 2, not a failure.
    clock.advance(LEASE);
    const recovered = scheduler.claimNext({ workerId: "B", leaseMs: LEASE })!;
    expect(recovered.run).toMatchObject({ runId, status: "RUNNING", attempts: 2 });
    expect(store.events(runId).at(-1)?.reason).toBe("claimed for attempt 2");
  });

  it("does not count an attempt a stopping worker handed back", () => {
    const { store, scheduler, runId, first } = setup({ maxAttempts: 1 });
    expect(first.lease.release()).toMatchObject({ status: "RETRYING", attempts: 0 });
    const again = scheduler.claimNext({ workerId: "B", leaseMs: LEASE })!;
    expect(again.run).toMatchObject({ runId, attempts: 1, fencingToken: 2 });
    // Still its one attempt: a retry now is refused as exhausted, as it would have been without the hand-back.
    again.lease.retry({ errorCode: "TOOL_TIMEOUT" });
    expect(store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED" });
  });

  it("lease.retry fails instead of retrying when attempts are used up", () => {
    const { store, runId, first } = setup({ maxAttempts: 1 });
    first.lease.retry({ errorCode: "TOOL_TIMEOUT" });
    expect(store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED" });
  });
});

describe("lease loss reasons", () => {
  it("reports cancel to the holder's next heartbeat and aborts its signal", () => {
    const { store, runId, first } = setup();
    store.cancel(runId, { actor: "cli" });
    expect(thrown(() => first.lease.renew())).toMatchObject({ code: "LEASE_LOST", reason: "canceled", status: "CANCELED" });
    expect(first.lease.signal.reason).toMatchObject({ reason: "canceled" });
  });

  it("expires a run past its deadline, even while RUNNING", () => {
    const { store, clock, scheduler, runId, first } = setup({ deadlineAt: 1_700_000_000_000 + 5000 });
    clock.advance(5000);
    expect(scheduler.sweepNow().map((r) => r.status)).toEqual(["EXPIRED"]);
    expect(store.get(runId)).toMatchObject({ status: "EXPIRED", errorCode: "DEADLINE_EXCEEDED" });
    expect(thrown(() => first.lease.renew())).toMatchObject({ reason: "deadline-expired" });
  });

  it("release hands the run back for another worker at once", () => {
    const { scheduler, runId, first } = setup();
    expect(first.lease.release().status).toBe("RETRYING");
    expect(scheduler.claimNext({ workerId: "B", leaseMs: LEASE })?.run.runId).toBe(runId);
  });
});

describe("defaultLeaseMs", () => {
  it("reads AGENTRT_LEASE_MS and falls back to 30 s", () => {
    expect(defaultLeaseMs({ AGENTRT_LEASE_MS: "300" })).toBe(300);
    expect(defaultLeaseMs({ AGENTRT_LEASE_MS: "nope" })).toBe(30_000);
    expect(defaultLeaseMs({})).toBe(30_000);
  });
});

describe("deferred usage", () => {
  it("is written with the lease's next write: a usage update, a check, or the outcome", () => {
    const { store, runId, first } = setup();
    first.lease.deferUsage({ steps: 1 });
    first.lease.deferUsage({ steps: 1 });
    expect(store.get(runId).usage.steps).toBe(0);
    expect(first.lease.addUsage({ steps: 1, modelCalls: 1, tokens: 10 })).toMatchObject({ steps: 3, modelCalls: 1, tokens: 10 });
    first.lease.deferUsage({ steps: 1 });
    expect(first.lease.check().usage.steps).toBe(4);
    first.lease.deferUsage({ steps: 2 });
    expect(first.lease.transition("SUCCEEDED").usage).toMatchObject({ steps: 6, modelCalls: 1 });
  });

  it("is never written by a holder that lost the lease", () => {
    const { store, runId, first } = setup();
    first.lease.deferUsage({ steps: 5 });
    store.cancel(runId);
    expect(thrown(() => first.lease.check())).toBeInstanceOf(LeaseLostError);
    expect(store.get(runId).usage.steps).toBe(0);
  });
});

describe("a full disk does not use up a run's attempts", () => {
  it("stays RETRYING with STORAGE_FULL however many times the disk stops it, its attempts given back", () => {
    const { store, clock, scheduler, runId, first } = setup({ maxAttempts: 2 });
    const full = new StorageError("STORAGE_FULL", "database or disk is full");
    let claimed = first;
    for (let i = 0; i < 5; i++) {
      const run = applyOutcome(claimed.lease, outcomeOfError(full, claimed.run.attempts));
      expect(run).toMatchObject({ status: "RETRYING", errorCode: "STORAGE_FULL", attempts: 0 });
      clock.advance(60_000);
      claimed = scheduler.claimNext({ workerId: "A", leaseMs: LEASE })!;
      expect(claimed.run).toMatchObject({ runId, status: "RUNNING", attempts: 1 });
    }
    // Its own faults still count: two ordinary retries exhaust a run of two attempts.
    claimed.lease.retry({ errorCode: "TOOL_TIMEOUT" });
    clock.advance(60_000);
    const last = scheduler.claimNext({ workerId: "A", leaseMs: LEASE })!;
    expect(last.lease.retry({ errorCode: "TOOL_TIMEOUT" })).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED" });
    expect(store.get(runId).status).toBe("FAILED");
  });
});
