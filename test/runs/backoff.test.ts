// A run RETRYING while its holder backs off in-process keeps its lease: nobody else may claim it until the lease expires.
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const claim = { workerId: "w1", leaseMs: 1000 };
const other = { workerId: "w2", leaseMs: 1000 };

function setup(maxAttempts = 3) {
  const { store, clock, path } = freshStore();
  // A second connection to the same file, as another worker process would have.
  const elsewhere = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }));
  const { runId } = store.create({ graphId: "g", maxAttempts });
  const { lease } = new Scheduler(store).claimRun(runId, claim)!;
  return { store, clock, elsewhere, runId, lease };
}

describe("in-process backoff", () => {
  it("shows RETRYING with the lease held, logs both changes, and returns to RUNNING without a claim", () => {
    const { store, elsewhere, runId, lease } = setup();
    const during = lease.startBackoff("get_x attempt 1 failed");
    expect(during).toMatchObject({ status: "RETRYING", lease: { owner: "w1" }, fencingToken: lease.token, attempts: 1 });
    expect(elsewhere.claimNext(other)).toBeUndefined();
    expect(elsewhere.claimRun(runId, other)).toBeUndefined();
    // The holder still heartbeats and counts usage while backing off.
    lease.renew();
    expect(lease.addUsage({ steps: 1 }).steps).toBe(1);
    expect(lease.endBackoff("attempt 2 starts")).toMatchObject({ status: "RUNNING", fencingToken: lease.token, attempts: 1 });
    lease.transition("SUCCEEDED");
    expect(store.events(runId).map((e) => [e.from, e.to, e.actor])).toEqual([
      [null, "QUEUED", null], ["QUEUED", "RUNNING", "w1"], ["RUNNING", "RETRYING", "w1"], ["RETRYING", "RUNNING", "w1"], ["RUNNING", "SUCCEEDED", "w1"],
    ]);
  });

  it("a held RETRYING run counts against the caps like a RUNNING one", () => {
    const { store, clock, path } = freshStore();
    const scheduler = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }), { maxRunning: 1 });
    const first = store.create({ graphId: "g" }).runId;
    store.create({ graphId: "g" });
    scheduler.claimRun(first, claim)!.lease.startBackoff("waiting");
    expect(scheduler.claimNext(other)).toBeUndefined();
  });

  it("an outcome written while the backoff is still shown ends it first", () => {
    const { store, runId, lease } = setup();
    lease.startBackoff("waiting");
    expect(lease.transition("SUCCEEDED").status).toBe("SUCCEEDED");
    expect(store.events(runId).slice(-2).map((e) => e.to)).toEqual(["RUNNING", "SUCCEEDED"]);
  });

  it("once the held lease expires another worker claims it with a higher token, and the old holder is fenced out", () => {
    const { store, clock, elsewhere, runId, lease } = setup();
    lease.startBackoff("waiting");
    clock.advance(1000);
    const taken = elsewhere.claimNext(other)!;
    expect(taken.run).toMatchObject({ runId, status: "RUNNING", lease: { owner: "w2" }, fencingToken: lease.token + 1, attempts: 2 });
    expect(thrown(() => lease.endBackoff("late"))).toMatchObject({ code: "LEASE_LOST", reason: "taken-over" });
    expect(thrown(() => lease.addUsage({ steps: 1 }))).toMatchObject({ code: "LEASE_LOST" });
    expect(lease.signal.aborted).toBe(true);
    expect(store.get(runId).lease?.owner).toBe("w2");
  });

  it("a sweep clears an expired held lease; on the last attempt the run fails ATTEMPTS_EXHAUSTED", () => {
    const open = setup();
    open.lease.startBackoff("waiting");
    open.clock.advance(1000);
    open.elsewhere.sweepNow();
    expect(open.store.get(open.runId)).toMatchObject({ status: "RETRYING", lease: null, errorCode: "LEASE_LOST" });
    expect(thrown(() => open.lease.renew())).toMatchObject({ code: "LEASE_LOST" });

    const last = setup(1);
    last.lease.startBackoff("waiting");
    last.clock.advance(1000);
    last.elsewhere.sweepNow();
    expect(last.store.get(last.runId)).toMatchObject({ status: "FAILED", errorCode: "ATTEMPTS_EXHAUSTED", lease: null });
  });

  it("a cancel during the backoff revokes the lease", () => {
    const { store, runId, lease } = setup();
    lease.startBackoff("waiting");
    store.cancel(runId, { actor: "cli" });
    expect(thrown(() => lease.renew())).toMatchObject({ code: "LEASE_LOST", reason: "canceled" });
  });
});
