// Conformance: leases (renewal, expiry, sweep recovery, attempts exhausted) and fencing: a stale token is refused by
// every fenced method, fenceIn included, and a fenced write inside a transaction that rolls back leaves nothing.
import { expect, it } from "vitest";
import { Scheduler } from "../../../src/runs/index.js";
import { claim, createClaimed, rejection, storeTest, type OpenRunStore } from "./run-store-shared.js";

/** Leases and fencing. */
export function leaseConformance(open: OpenRunStore): void {
  it("renews a lease so the sweep leaves it, and recovers it once it expires", storeTest(open, async ({ store, other, clock }) => {
    const { run, lease } = await createClaimed(store);
    clock.advance(900);
    await store.renewLease(run.runId, lease.token, clock.now + 1000);
    clock.advance(900);
    expect(await other.sweep()).toEqual([]);
    expect((await store.leaseStates([run.runId, run.runId, "run_missing"]))).toEqual([{ runId: run.runId, status: "RUNNING", fencingToken: 1 }]);
    clock.advance(100);
    const [recovered] = await other.sweep();
    expect(recovered).toMatchObject({ runId: run.runId, status: "RETRYING", errorCode: "LEASE_LOST", lease: null, availableAt: clock.now, fencingToken: 1 });
    expect((await store.events(run.runId)).at(-1)).toMatchObject({ from: "RUNNING", to: "RETRYING", errorCode: "LEASE_LOST", reason: "lease of w1 expired" });
    expect(await rejection(lease.renew())).toMatchObject({ code: "LEASE_LOST", reason: "lease-expired" });
    expect((await new Scheduler(other).claimNext(claim))?.run).toMatchObject({ runId: run.runId, attempts: 2, fencingToken: 2 });
  }));

  it("drops the lease of a backoff whose holder stopped, and fails a run out of attempts", storeTest(open, async ({ store, clock }) => {
    const backoff = await createClaimed(store);
    await backoff.lease.startBackoff("tool backoff");
    const last = await createClaimed(store, { graphId: "g", maxAttempts: 1 });
    await last.lease.startBackoff("tool backoff");
    const eventsBefore = (await store.events(backoff.run.runId)).length;
    clock.advance(1000);
    const swept = await store.sweep();
    expect(swept.map((r) => [r.runId, r.status]).sort()).toEqual([[backoff.run.runId, "RETRYING"], [last.run.runId, "FAILED"]].sort());
    expect(await store.get(backoff.run.runId)).toMatchObject({ status: "RETRYING", lease: null, errorCode: "LEASE_LOST", availableAt: clock.now });
    expect(await store.events(backoff.run.runId)).toHaveLength(eventsBefore);
    expect(await store.get(last.run.runId)).toMatchObject({ errorCode: "ATTEMPTS_EXHAUSTED", errorMessage: "lease of w1 expired on attempt 1 of 1" });
  }));

  it("fails a run that retries after its last attempt", storeTest(open, async ({ store }) => {
    const { lease } = await createClaimed(store, { graphId: "g", maxAttempts: 1 });
    expect(await lease.retry({ errorCode: "FLAKY", errorMessage: "again" })).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED", errorMessage: "again" });
  }));

  it("refuses a stale token on every fenced method, leaving the run as it is", storeTest(open, async (opened) => {
    const { store, other, clock } = opened;
    const stale = await createClaimed(store);
    const { runId } = stale.run;
    clock.advance(1000);
    const taken = (await new Scheduler(other).claimNext({ workerId: "w2", leaseMs: 1000 }))!;
    const token = stale.lease.token;
    const refusals: [string, () => Promise<unknown>][] = [
      ["transition", () => store.transition(runId, "SUCCEEDED", { fence: token })],
      ["transition with usage", () => store.transition(runId, "FAILED", { fence: token, usage: { steps: 1 } })],
      ["addUsage", () => store.addUsage(runId, token, { steps: 1 })],
      ["checkLease", () => store.checkLease(runId, token)],
      ["checkLease with usage", () => store.checkLease(runId, token, { tokens: 5 })],
      ["assertHeld", () => store.assertHeld(runId, token)],
      ["renewLease", () => store.renewLease(runId, token, clock.now + 5000)],
      ["setBackoff", () => store.setBackoff(runId, token, "RETRYING", { actor: "w1", reason: "r" })],
      ["fenceIn", () => opened.transaction((tx) => store.fenceIn(tx, runId, token))],
      ["fenceIn with usage", () => opened.transaction((tx) => store.fenceIn(tx, runId, token, { steps: 1 }))],
    ];
    for (const [name, refusal] of refusals) {
      expect(await rejection(refusal()), name).toMatchObject({ code: "LEASE_LOST", reason: "taken-over", status: "RUNNING" });
    }
    expect(await store.get(runId)).toMatchObject({ status: "RUNNING", fencingToken: taken.lease.token, lease: { owner: "w2" }, usage: { steps: 0, tokens: 0 } });
    expect(await rejection(store.assertHeld("run_missing", 1))).toMatchObject({ code: "UNKNOWN_RUN" });
  }));

  it("fences inside another module's transaction: usage commits with it, or rolls back with it", storeTest(open, async (opened) => {
    const { store } = opened;
    const { run, lease } = await createClaimed(store);
    await opened.transaction((tx) => store.fenceIn(tx, run.runId, lease.token, { steps: 2, costUsd: 0.25 }), { rollback: true });
    expect((await store.get(run.runId)).usage).toMatchObject({ steps: 0, costUsd: 0 });
    await opened.transaction((tx) => store.fenceIn(tx, run.runId, lease.token, { steps: 2, costUsd: 0.25 }));
    await opened.transaction((tx) => store.fenceIn(tx, run.runId, lease.token));
    expect((await store.get(run.runId)).usage).toMatchObject({ steps: 2, costUsd: 0.25 });
    expect(await rejection((async () => store.fenceIn(opened.foreignTransaction, run.runId, lease.token))())).toMatchObject({ code: "INTERNAL" });
    await store.cancel(run.runId, { actor: "ops" });
    expect(await rejection(opened.transaction((tx) => store.fenceIn(tx, run.runId, lease.token)))).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
    // With usage, the usage update is the fence: still refused, nothing added.
    expect(await rejection(opened.transaction((tx) => store.fenceIn(tx, run.runId, lease.token, { steps: 1 })))).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
    expect((await store.get(run.runId)).usage).toMatchObject({ steps: 2 });
  }));

  it("counts usage under a held backoff and checks the lease with its totals", storeTest(open, async ({ store }) => {
    const { run, lease } = await createClaimed(store);
    await lease.startBackoff("backoff");
    expect(await store.setBackoff(run.runId, lease.token, "RETRYING", { actor: "w1", reason: "again" })).toMatchObject({ status: "RETRYING" });
    expect(await store.addUsage(run.runId, lease.token, { modelCalls: 2, tokens: 7 })).toEqual({ steps: 0, modelCalls: 2, tokens: 7, costUsd: 0 });
    expect(await store.checkLease(run.runId, lease.token, { steps: 1 })).toMatchObject({ status: "RETRYING", usage: { steps: 1, modelCalls: 2, tokens: 7 } });
    await store.assertHeld(run.runId, lease.token);
    const done = await lease.transition("SUCCEEDED");
    expect(done.status).toBe("SUCCEEDED");
    expect((await store.events(run.runId)).map((e) => [e.from, e.to, e.reason])).toEqual([
      [null, "QUEUED", null], ["QUEUED", "RUNNING", "claimed"], ["RUNNING", "RETRYING", "backoff"],
      ["RETRYING", "RUNNING", "backoff ended"], ["RUNNING", "SUCCEEDED", null],
    ]);
  }));
}
