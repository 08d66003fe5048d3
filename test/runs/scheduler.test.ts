import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const claim = { workerId: "w", leaseMs: 60_000 };

describe("claim order", () => {
  it("claims by priority (higher first), then age, then id", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const made: Record<string, string> = {};
    for (const [name, priority] of [["old-low", 0], ["old-high", 5], ["mid-low", 0], ["new-high", 5], ["newest-mid", 2]] as const) {
      made[name] = store.create({ graphId: "g", priority }).runId;
      clock.advance(1);
    }
    const order: string[] = [];
    for (let claimed = scheduler.claimNext(claim); claimed !== undefined; claimed = scheduler.claimNext(claim)) {
      order.push(Object.keys(made).find((name) => made[name] === claimed.run.runId)!);
    }
    expect(order).toEqual(["old-high", "new-high", "newest-mid", "old-low", "mid-low"]);
  });

  it("orders QUEUED and due RETRYING runs together", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const oldRetrying = store.create({ graphId: "g" }).runId;
    clock.advance(1);
    const newQueued = store.create({ graphId: "g" }).runId;
    clock.advance(1);
    const urgentRetrying = store.create({ graphId: "g", priority: 9 }).runId;
    for (const runId of [oldRetrying, urgentRetrying]) scheduler.claimRun(runId, claim)!.lease.retry();
    clock.advance(1);
    const urgentQueued = store.create({ graphId: "g", priority: 9 }).runId;
    const order: string[] = [];
    for (let c = scheduler.claimNext(claim); c !== undefined; c = scheduler.claimNext(claim)) order.push(c.run.runId);
    expect(order).toEqual([urgentRetrying, urgentQueued, oldRetrying, newQueued]);
  });

  it("does not claim a RETRYING run before its delay, nor a run not yet available", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const later = store.create({ graphId: "g", availableAt: clock.now + 1000 });
    const { runId } = store.create({ graphId: "g" });
    scheduler.claimNext(claim)!.lease.retry({ delayMs: 500, errorCode: "TOOL_TIMEOUT" });
    expect(store.get(runId)).toMatchObject({ status: "RETRYING", errorCode: "TOOL_TIMEOUT" });
    expect(scheduler.claimNext(claim)).toBeUndefined();
    clock.advance(500);
    expect(scheduler.claimNext(claim)?.run).toMatchObject({ runId, attempts: 2 });
    clock.advance(500);
    expect(scheduler.claimNext(claim)?.run.runId).toBe(later.runId);
  });

  it("claims a specific run on request, ignoring its retry delay", () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = store.create({ graphId: "g" });
    scheduler.claimNext(claim)!.lease.retry({ delayMs: 60_000 });
    expect(scheduler.claimRun(runId, claim)?.run.status).toBe("RUNNING");
    expect(scheduler.claimRun(runId, claim)).toBeUndefined();
  });

  it("never claims a finished run", () => {
    const { store } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    store.cancel(runId);
    expect(new Scheduler(store).claimNext(claim)).toBeUndefined();
    expect(thrown(() => new Scheduler(store).claimRun(runId, claim))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
  });
});

describe("caps", () => {
  it("honours the global cap across schedulers on separate connections", () => {
    const { store, path, clock } = freshStore();
    const other = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }), { maxRunning: 2 });
    const scheduler = new Scheduler(store, { maxRunning: 2 });
    for (let i = 0; i < 4; i++) store.create({ graphId: "g", userId: `u${i}` });
    const first = scheduler.claimNext(claim)!;
    expect(other.claimNext(claim)).toBeDefined();
    expect(scheduler.claimNext(claim)).toBeUndefined();
    expect(other.claimNext(claim)).toBeUndefined();
    first.lease.transition("SUCCEEDED");
    expect(other.claimNext(claim)).toBeDefined();
    expect(store.list({ status: "RUNNING" })).toHaveLength(2);
  });

  it("honours per-user caps and overrides, taking other users' younger runs meanwhile", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store, { maxRunningPerUser: 1, userLimits: { vip: 2 } });
    const ids = (user: string, n: number) =>
      Array.from({ length: n }, () => {
        clock.advance(1);
        return store.create({ graphId: "g", userId: user }).runId;
      });
    const ann = ids("ann", 3);
    const vip = ids("vip", 3);
    const bob = ids("bob", 1);
    const claimed: string[] = [];
    for (let c = scheduler.claimNext(claim); c !== undefined; c = scheduler.claimNext(claim)) claimed.push(c.run.runId);
    expect(claimed).toEqual([ann[0], vip[0], vip[1], bob[0]]);
    expect(scheduler.claimRun(ann[1]!, claim)).toBeUndefined();
  });

  it("rejects a cap below one", () => {
    const { store } = freshStore();
    expect(thrown(() => new Scheduler(store, { maxRunning: 0 }))).toMatchObject({ code: "BAD_INPUT" });
  });
});

describe("hasPendingWork", () => {
  it("is true while anything is queued, retrying or running", () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    expect(scheduler.hasPendingWork()).toBe(false);
    store.create({ graphId: "g" });
    expect(scheduler.hasPendingWork()).toBe(true);
    const { lease } = scheduler.claimNext(claim)!;
    expect(scheduler.hasPendingWork()).toBe(true);
    lease.transition("WAITING_APPROVAL");
    expect(scheduler.hasPendingWork()).toBe(false);
  });
});

describe("runs of one thread", () => {
  it("execute one at a time in creation order, whatever their priority, across connections", () => {
    const { store, path, clock } = freshStore();
    const other = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }));
    const scheduler = new Scheduler(store);
    const first = store.create({ graphId: "g", threadId: "t1" }).runId;
    clock.advance(1);
    const second = store.create({ graphId: "g", threadId: "t1", priority: 9 }).runId;
    clock.advance(1);
    const elsewhere = store.create({ graphId: "g", threadId: "t2" }).runId;
    const a = scheduler.claimNext(claim)!;
    expect(a.run.runId).toBe(first);
    // The thread's second run outranks everything but must wait for the first; the other thread goes ahead.
    expect(other.claimNext(claim)?.run.runId).toBe(elsewhere);
    expect(other.claimNext(claim)).toBeUndefined();
    expect(other.claimRun(second, claim)).toBeUndefined();
    a.lease.transition("SUCCEEDED");
    expect(other.claimNext(claim)?.run.runId).toBe(second);
  });

  it("an older run backing off (RETRYING) still holds the thread", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const first = store.create({ graphId: "g", threadId: "t" }).runId;
    clock.advance(1);
    const second = store.create({ graphId: "g", threadId: "t" }).runId;
    scheduler.claimNext(claim)!.lease.retry({ delayMs: 1000 });
    expect(scheduler.claimNext(claim)).toBeUndefined();
    clock.advance(1000);
    expect(scheduler.claimNext(claim)?.run.runId).toBe(first);
    expect(scheduler.claimRun(second, claim)).toBeUndefined();
  });

  it("a waiting run holds back later runs of its thread until it finishes; `once` workers see no pending work", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const waiting = store.create({ graphId: "g", threadId: "t" }).runId;
    clock.advance(1);
    const later = store.create({ graphId: "g", threadId: "t" }).runId;
    scheduler.claimNext(claim)!.lease.transition("WAITING_APPROVAL", { pending: [] });
    expect(scheduler.claimNext(claim)).toBeUndefined();
    expect(scheduler.claimRun(later, claim)).toBeUndefined();
    expect(scheduler.hasPendingWork()).toBe(false);
    store.cancel(waiting);
    expect(scheduler.hasPendingWork()).toBe(true);
    expect(scheduler.claimNext(claim)?.run.runId).toBe(later);
  });
});
