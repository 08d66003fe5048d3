// A run RETRYING while its holder backs off in-process keeps its lease: nobody else may claim it until the lease expires.
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const claim = { workerId: "w1", leaseMs: 1000 };
const other = { workerId: "w2", leaseMs: 1000 };

async function setup(maxAttempts = 3) {
  const { store, clock, path } = freshStore();
  // A second connection to the same file, as another worker process would have.
  const elsewhere = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }));
  const { runId } = await store.create({ graphId: "g", maxAttempts });
  const { lease } = (await new Scheduler(store).claimRun(runId, claim))!;
  return { store, clock, elsewhere, runId, lease };
}

describe("in-process backoff", () => {
  it("shows RETRYING with the lease held, logs both changes, and returns to RUNNING without a claim", async () => {
    const { store, elsewhere, runId, lease } = await setup();
    const during = await lease.startBackoff("get_x attempt 1 failed");
    expect(during).toMatchObject({ status: "RETRYING", lease: { owner: "w1" }, fencingToken: lease.token, attempts: 1 });
    expect(await elsewhere.claimNext(other)).toBeUndefined();
    expect(await elsewhere.claimRun(runId, other)).toBeUndefined();
    // The holder still heartbeats and counts usage while backing off.
    await lease.renew();
    expect((await lease.addUsage({ steps: 1 })).steps).toBe(1);
    expect(await lease.endBackoff("attempt 2 starts")).toMatchObject({ status: "RUNNING", fencingToken: lease.token, attempts: 1 });
    await lease.transition("SUCCEEDED");
    expect((await store.events(runId)).map((e) => [e.from, e.to, e.actor])).toEqual([
      [null, "QUEUED", null], ["QUEUED", "RUNNING", "w1"], ["RUNNING", "RETRYING", "w1"], ["RETRYING", "RUNNING", "w1"], ["RUNNING", "SUCCEEDED", "w1"],
    ]);
  });

  it("a held RETRYING run counts against the caps like a RUNNING one", async () => {
    const { store, clock, path } = freshStore();
    const scheduler = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }), { maxRunning: 1 });
    const first = (await store.create({ graphId: "g" })).runId;
    await store.create({ graphId: "g" });
    await (await scheduler.claimRun(first, claim))!.lease.startBackoff("waiting");
    expect(await scheduler.claimNext(other)).toBeUndefined();
  });

  it("an outcome written while the backoff is still shown ends it first", async () => {
    const { store, runId, lease } = await setup();
    await lease.startBackoff("waiting");
    expect((await lease.transition("SUCCEEDED")).status).toBe("SUCCEEDED");
    expect((await store.events(runId)).slice(-2).map((e) => e.to)).toEqual(["RUNNING", "SUCCEEDED"]);
  });

  it("once the held lease expires another worker claims it with a higher token, and the old holder is fenced out", async () => {
    const { store, clock, elsewhere, runId, lease } = await setup();
    await lease.startBackoff("waiting");
    clock.advance(1000);
    const taken = (await elsewhere.claimNext(other))!;
    expect(taken.run).toMatchObject({ runId, status: "RUNNING", lease: { owner: "w2" }, fencingToken: lease.token + 1, attempts: 2 });
    expect(await thrown(() => lease.endBackoff("late"))).toMatchObject({ code: "LEASE_LOST", reason: "taken-over" });
    expect(await thrown(() => lease.addUsage({ steps: 1 }))).toMatchObject({ code: "LEASE_LOST" });
    expect(lease.signal.aborted).toBe(true);
    expect((await store.get(runId)).lease?.owner).toBe("w2");
  });

  it("a sweep clears an expired held lease; on the last attempt the run fails ATTEMPTS_EXHAUSTED", async () => {
    const open = await setup();
    await open.lease.startBackoff("waiting");
    open.clock.advance(1000);
    await open.elsewhere.sweepNow();
    expect(await open.store.get(open.runId)).toMatchObject({ status: "RETRYING", lease: null, errorCode: "LEASE_LOST" });
    expect(await thrown(() => open.lease.renew())).toMatchObject({ code: "LEASE_LOST" });

    const last = await setup(1);
    await last.lease.startBackoff("waiting");
    last.clock.advance(1000);
    await last.elsewhere.sweepNow();
    expect(await last.store.get(last.runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED", lease: null });
  });

  it("a cancel during the backoff revokes the lease", async () => {
    const { store, runId, lease } = await setup();
    await lease.startBackoff("waiting");
    await store.cancel(runId, { actor: "cli" });
    expect(await thrown(() => lease.renew())).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
  });
});
