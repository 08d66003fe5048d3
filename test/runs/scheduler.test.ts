import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler } from "../../src/runs/index.js";
import { freshStore, thrown } from "./helpers.js";

const claim = { workerId: "w", leaseMs: 60_000 };

describe("claim order", () => {
  it("claims by priority (higher first), then age, then id", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const made: Record<string, string> = {};
    for (const [name, priority] of [["old-low", 0], ["old-high", 5], ["mid-low", 0], ["new-high", 5], ["newest-mid", 2]] as const) {
      made[name] = (await store.create({ graphId: "g", priority })).runId;
      clock.advance(1);
    }
    const order: string[] = [];
    for (let claimed = await scheduler.claimNext(claim); claimed !== undefined; claimed = await scheduler.claimNext(claim)) {
      order.push(Object.keys(made).find((name) => made[name] === claimed.run.runId)!);
    }
    expect(order).toEqual(["old-high", "new-high", "newest-mid", "old-low", "mid-low"]);
  });

  it("orders QUEUED and due RETRYING runs together", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const oldRetrying = (await store.create({ graphId: "g" })).runId;
    clock.advance(1);
    const newQueued = (await store.create({ graphId: "g" })).runId;
    clock.advance(1);
    const urgentRetrying = (await store.create({ graphId: "g", priority: 9 })).runId;
    for (const runId of [oldRetrying, urgentRetrying]) await (await scheduler.claimRun(runId, claim))!.lease.retry();
    clock.advance(1);
    const urgentQueued = (await store.create({ graphId: "g", priority: 9 })).runId;
    const order: string[] = [];
    for (let c = await scheduler.claimNext(claim); c !== undefined; c = await scheduler.claimNext(claim)) order.push(c.run.runId);
    expect(order).toEqual([urgentRetrying, urgentQueued, oldRetrying, newQueued]);
  });

  it("does not claim a RETRYING run before its delay, nor a run not yet available", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const later = await store.create({ graphId: "g", availableAt: clock.now + 1000 });
    const { runId } = await store.create({ graphId: "g" });
    await (await scheduler.claimNext(claim))!.lease.retry({ delayMs: 500, errorCode: "TOOL_TIMEOUT" });
    expect(await store.get(runId)).toMatchObject({ status: "RETRYING", errorCode: "TOOL_TIMEOUT" });
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    clock.advance(500);
    expect((await scheduler.claimNext(claim))?.run).toMatchObject({ runId, attempts: 2 });
    clock.advance(500);
    expect((await scheduler.claimNext(claim))?.run.runId).toBe(later.runId);
  });

  it("claims a specific run on request, ignoring its retry delay", async () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = await store.create({ graphId: "g" });
    await (await scheduler.claimNext(claim))!.lease.retry({ delayMs: 60_000 });
    expect((await scheduler.claimRun(runId, claim))?.run.status).toBe("RUNNING");
    expect(await scheduler.claimRun(runId, claim)).toBeUndefined();
  });

  it("never claims a finished run", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    await store.cancel(runId);
    expect(await new Scheduler(store).claimNext(claim)).toBeUndefined();
    expect(await thrown(() => new Scheduler(store).claimRun(runId, claim))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
  });
});

describe("caps", () => {
  it("honours the global cap across schedulers on separate connections", async () => {
    const { store, path, clock } = freshStore();
    const other = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }), { maxRunning: 2 });
    const scheduler = new Scheduler(store, { maxRunning: 2 });
    for (let i = 0; i < 4; i++) await store.create({ graphId: "g", userId: `u${i}` });
    const first = (await scheduler.claimNext(claim))!;
    expect(await other.claimNext(claim)).toBeDefined();
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    expect(await other.claimNext(claim)).toBeUndefined();
    await first.lease.transition("SUCCEEDED");
    expect(await other.claimNext(claim)).toBeDefined();
    expect(await store.list({ status: "RUNNING" })).toHaveLength(2);
  });

  it("honours per-user caps and overrides, taking other users' younger runs meanwhile", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store, { maxRunningPerUser: 1, userLimits: { vip: 2 } });
    const ids = async (user: string, n: number) => {
      const made: string[] = [];
      for (let i = 0; i < n; i++) {
        clock.advance(1);
        made.push((await store.create({ graphId: "g", userId: user })).runId);
      }
      return made;
    };
    const ann = await ids("ann", 3);
    const vip = await ids("vip", 3);
    const bob = await ids("bob", 1);
    const claimed: string[] = [];
    for (let c = await scheduler.claimNext(claim); c !== undefined; c = await scheduler.claimNext(claim)) claimed.push(c.run.runId);
    expect(claimed).toEqual([ann[0], vip[0], vip[1], bob[0]]);
    expect(await scheduler.claimRun(ann[1]!, claim)).toBeUndefined();
  });

  it("rejects a cap below one", async () => {
    const { store } = freshStore();
    expect(await thrown(() => new Scheduler(store, { maxRunning: 0 }))).toMatchObject({ code: "BAD_INPUT" });
  });
});

describe("hasPendingWork", () => {
  it("is true while anything is queued, retrying or running", async () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    expect(await scheduler.hasPendingWork()).toBe(false);
    await store.create({ graphId: "g" });
    expect(await scheduler.hasPendingWork()).toBe(true);
    const { lease } = (await scheduler.claimNext(claim))!;
    expect(await scheduler.hasPendingWork()).toBe(true);
    await lease.transition("WAITING_APPROVAL");
    expect(await scheduler.hasPendingWork()).toBe(false);
  });
});

describe("runs of one thread", () => {
  it("execute one at a time in creation order, whatever their priority, across connections", async () => {
    const { store, path, clock } = freshStore();
    const other = new Scheduler(SqliteRunStore.open(openDatabase(path), { clock }));
    const scheduler = new Scheduler(store);
    const first = (await store.create({ graphId: "g", threadId: "t1" })).runId;
    clock.advance(1);
    const second = (await store.create({ graphId: "g", threadId: "t1", priority: 9 })).runId;
    clock.advance(1);
    const elsewhere = (await store.create({ graphId: "g", threadId: "t2" })).runId;
    const a = (await scheduler.claimNext(claim))!;
    expect(a.run.runId).toBe(first);
    // The thread's second run outranks everything but must wait for the first; the other thread goes ahead.
    expect((await other.claimNext(claim))?.run.runId).toBe(elsewhere);
    expect(await other.claimNext(claim)).toBeUndefined();
    expect(await other.claimRun(second, claim)).toBeUndefined();
    await a.lease.transition("SUCCEEDED");
    expect((await other.claimNext(claim))?.run.runId).toBe(second);
  });

  it("an older run backing off (RETRYING) still holds the thread", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const first = (await store.create({ graphId: "g", threadId: "t" })).runId;
    clock.advance(1);
    const second = (await store.create({ graphId: "g", threadId: "t" })).runId;
    await (await scheduler.claimNext(claim))!.lease.retry({ delayMs: 1000 });
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    clock.advance(1000);
    expect((await scheduler.claimNext(claim))?.run.runId).toBe(first);
    expect(await scheduler.claimRun(second, claim)).toBeUndefined();
  });

  it("a waiting run holds back later runs of its thread until it finishes; `once` workers see no pending work", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const waiting = (await store.create({ graphId: "g", threadId: "t" })).runId;
    clock.advance(1);
    const later = (await store.create({ graphId: "g", threadId: "t" })).runId;
    await (await scheduler.claimNext(claim))!.lease.transition("WAITING_APPROVAL", { pending: [] });
    expect(await scheduler.claimNext(claim)).toBeUndefined();
    expect(await scheduler.claimRun(later, claim)).toBeUndefined();
    expect(await scheduler.hasPendingWork()).toBe(false);
    await store.cancel(waiting);
    expect(await scheduler.hasPendingWork()).toBe(true);
    expect((await scheduler.claimNext(claim))?.run.runId).toBe(later);
  });
});

describe("claims without caps", () => {
  it("count no running runs when no cap is finite, and do when one is", async () => {
    const { store } = freshStore();
    const counts: string[] = [];
    const stmt = store.sync.stmt.bind(store.sync);
    store.sync.stmt = (sql: string) => {
      if (sql.includes("COUNT(*) AS n FROM runs")) counts.push(sql);
      return stmt(sql);
    };
    await store.create({ graphId: "g" });
    expect(await new Scheduler(store).claimNext(claim)).toBeDefined();
    await new Scheduler(store).createAndClaim({ graphId: "g" }, claim);
    expect(counts).toHaveLength(0);
    // A cap needs the count: the second run is held back by the first's slot.
    expect((await new Scheduler(store, { maxRunning: 2 }).createAndClaim({ graphId: "g" }, claim)).claimed).toBeUndefined();
    expect(counts).toHaveLength(1);
  });
});
