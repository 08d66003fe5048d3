// Wait TTL on the run store with a hand-driven clock: the deadline is set on entering a wait, cleared on leaving,
// and a passed deadline makes the run EXPIRED (WAIT_EXPIRED) through the sweep or the lazy check.
import { describe, expect, it } from "vitest";
import { Scheduler, defaultWaitTtlMs, type SqliteRunStore } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

async function waiting(store: SqliteRunStore, scheduler: Scheduler, waitTtlMs: number | undefined, status: "WAITING_INPUT" | "WAITING_APPROVAL" = "WAITING_INPUT") {
  const run = await store.create({ graphId: "g", waitTtlMs });
  const claimed = await scheduler.claimRun(run.runId, { workerId: "w", leaseMs: 10_000 });
  if (claimed === undefined) throw new Error("not claimed");
  return claimed.lease.transition(status, { pending: [{ interrupt_id: "i1", value: { question: "Which order?" } }] });
}

describe("wait TTL", () => {
  it("sets the wait deadline on entering a wait and expires the run lazily once it passed", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const run = await waiting(store, scheduler, 1_000);
    expect(run.waitTtlMs).toBe(1_000);
    expect(run.waitExpiresAt).toBe(clock.now + 1_000);
    clock.advance(999);
    expect((await store.expireWaitIfDue(run.runId)).status).toBe("WAITING_INPUT");
    clock.advance(1);
    const expired = await store.expireWaitIfDue(run.runId);
    expect(expired).toMatchObject({ status: "EXPIRED", errorCode: "WAIT_EXPIRED", waitExpiresAt: null });
    expect((await store.events(run.runId)).at(-1)).toMatchObject({ from: "WAITING_INPUT", to: "EXPIRED", errorCode: "WAIT_EXPIRED" });
    // Expired is final: it can no longer be claimed for a resume.
    expect((await thrown(() => scheduler.claimRun(run.runId, { workerId: "w", leaseMs: 1 })) as { code: string }).code).toBe("ILLEGAL_TRANSITION");
  });

  it("the scheduler's sweep (every worker claim) expires overdue waits of both kinds", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const input = await waiting(store, scheduler, 50);
    const approval = await waiting(store, scheduler, 500, "WAITING_APPROVAL");
    const forever = await waiting(store, scheduler, undefined);
    expect(forever.waitExpiresAt).toBeNull();
    clock.advance(100);
    expect(await scheduler.claimNext({ workerId: "w2", leaseMs: 1_000 })).toBeUndefined();
    expect((await store.get(input.runId)).status).toBe("EXPIRED");
    expect((await store.get(approval.runId)).status).toBe("WAITING_APPROVAL");
    clock.advance(10_000_000);
    expect((await scheduler.sweepNow()).map((r) => r.runId)).toEqual([approval.runId]);
    expect(await store.get(approval.runId)).toMatchObject({ status: "EXPIRED", errorCode: "WAIT_EXPIRED" });
    expect((await store.get(forever.runId)).status).toBe("WAITING_INPUT");
  });

  it("a resumed run leaves its wait deadline behind; the next wait gets a fresh one", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const run = await waiting(store, scheduler, 1_000);
    clock.advance(900);
    const queued = await store.resume(run.runId, { resume: { kind: "input", interrupt_id: "i1", value: "10086", by: "u" } });
    expect(queued.waitExpiresAt).toBeNull();
    clock.advance(5_000);
    expect((await store.expireWaitIfDue(run.runId)).status).toBe("QUEUED");
    const again = await scheduler.claimNext({ workerId: "w", leaseMs: 10_000 });
    const waitingAgain = await again!.lease.transition("WAITING_APPROVAL", { pending: [] });
    expect(waitingAgain.waitExpiresAt).toBe(clock.now + 1_000);
  });

  it("a resume (answer or decision left for a worker) is refused once the wait is past its TTL, even before any sweep", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const run = await waiting(store, scheduler, 1_000);
    const events = (await store.events(run.runId)).length;
    clock.advance(1_000);
    const error = await thrown(() => store.resume(run.runId, { resume: { kind: "input", interrupt_id: "i1", value: "10086", by: "u" } }));
    expect(error).toMatchObject({ code: "RUN_NOT_WAITING" });
    expect(await store.get(run.runId)).toMatchObject({ status: "WAITING_INPUT", resume: null });
    expect(await store.events(run.runId)).toHaveLength(events);
    expect((await store.expireWaitIfDue(run.runId)).status).toBe("EXPIRED");
  });

  it("refuses a TTL below 1 ms and a malformed AGENTRT_WAIT_TTL_MS", async () => {
    const { store } = freshStore();
    expect((await thrown(() => store.create({ graphId: "g", waitTtlMs: 0 })) as { code: string }).code).toBe("BAD_INPUT");
    expect((await thrown(() => store.create({ graphId: "g", waitTtlMs: 1.5 })) as { code: string }).code).toBe("BAD_INPUT");
    expect(await store.list()).toHaveLength(0);
    expect(defaultWaitTtlMs({})).toBeUndefined();
    expect(defaultWaitTtlMs({ AGENTRT_WAIT_TTL_MS: "60000" })).toBe(60_000);
    expect((await thrown(() => defaultWaitTtlMs({ AGENTRT_WAIT_TTL_MS: "soon" })) as { code: string }).code).toBe("BAD_INPUT");
  });
});
