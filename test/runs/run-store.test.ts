import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";
import { SqliteRunStore, Scheduler, UnknownRunError, createWorker, newRunId } from "../../src/runs/index.js";
import { freshStore, tempDbPath, thrown } from "./helpers.js";

describe("SqliteRunStore.create and reads", () => {
  it("writes a QUEUED run with defaults and its first event", async () => {
    const { store, clock } = freshStore();
    const run = await store.create({ graphId: "ops_rollback", input: { message: "hi" } });
    expect(run.runId).toMatch(/^run_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(run).toMatchObject({
      threadId: `thread_${run.runId.slice(4)}`,
      graphId: "ops_rollback",
      userId: "anonymous",
      status: "QUEUED",
      priority: 0,
      attempts: 0,
      maxAttempts: 3,
      usage: { steps: 0, modelCalls: 0, tokens: 0, costUsd: 0 },
      lease: null,
      fencingToken: 0,
      input: { message: "hi" },
      createdAt: clock.now,
      availableAt: clock.now,
    });
    expect(await store.events(run.runId)).toEqual([
      expect.objectContaining({ runId: run.runId, from: null, to: "QUEUED", at: clock.now }),
    ]);
  });

  it("keeps a given run id, thread id, user, budget and metadata", async () => {
    const { store } = freshStore();
    const run = await store.create({
      graphId: "g", runId: "run_custom", threadId: "thread_shared", userId: "ann", priority: 5,
      budget: { maxSteps: 10, maxCostUsd: 0.5 }, metadata: { source: "test" }, deadlineAt: 123, maxAttempts: 7,
    });
    expect(run).toMatchObject({
      runId: "run_custom", threadId: "thread_shared", userId: "ann", priority: 5,
      budget: { maxSteps: 10, maxCostUsd: 0.5 }, metadata: { source: "test" }, deadlineAt: 123, maxAttempts: 7,
    });
  });

  it("refuses a taken run id and non-integer numbers with BAD_INPUT", async () => {
    const { store } = freshStore();
    await store.create({ graphId: "g", runId: "run_same" });
    expect(await thrown(() => store.create({ graphId: "g", runId: "run_same" }))).toMatchObject({ code: "BAD_INPUT" });
    expect(await thrown(() => store.create({ graphId: "g", priority: 1.5 }))).toMatchObject({ code: "BAD_INPUT" });
    expect(await thrown(() => store.create({ graphId: "g", maxAttempts: 0 }))).toMatchObject({ code: "BAD_INPUT" });
    expect(await store.list()).toHaveLength(1);
  });

  it("makes unique run ids that sort by creation time", async () => {
    const ids = Array.from({ length: 2000 }, (_, i) => newRunId(1_700_000_000_000 + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("throws UNKNOWN_RUN for a missing run", async () => {
    const { store } = freshStore();
    const error = await thrown(() => store.get("run_nope"));
    expect(error).toBeInstanceOf(UnknownRunError);
    expect(error).toMatchObject({ code: "UNKNOWN_RUN" });
    expect(await store.find("run_nope")).toBeUndefined();
  });

  it("a cancel records who canceled and why in the error message (never empty)", async () => {
    const { store } = freshStore();
    const plain = await store.create({ graphId: "g" });
    const told = await store.create({ graphId: "g" });
    expect(await store.cancel(plain.runId)).toMatchObject({ errorCode: "CANCELED", errorMessage: "canceled" });
    expect(await store.cancel(told.runId, { actor: "ops", reason: "wrong order" })).toMatchObject({
      errorCode: "CANCELED", errorMessage: "canceled by ops: wrong order",
    });
  });

  it("lists by status, user, graph and thread", async () => {
    const { store } = freshStore();
    const a = await store.create({ graphId: "g1", userId: "ann" });
    const b = await store.create({ graphId: "g2", userId: "bob", threadId: "t1" });
    await store.create({ graphId: "g2", userId: "bob" });
    await store.cancel(a.runId);
    expect((await store.list({ status: "CANCELED" })).map((r) => r.runId)).toEqual([a.runId]);
    expect(await store.list({ status: ["QUEUED", "CANCELED"] })).toHaveLength(3);
    expect(await store.list({ userId: "bob" })).toHaveLength(2);
    expect((await store.list({ graphId: "g2", threadId: "t1" })).map((r) => r.runId)).toEqual([b.runId]);
    expect((await store.list({ order: "newest", limit: 2 })).map((r) => r.runId)).toEqual(
      (await store.list()).map((r) => r.runId).reverse().slice(0, 2),
    );
  });

  it("is shared by two connections to the same file", async () => {
    const { store, path } = freshStore();
    const run = await store.create({ graphId: "g" });
    const other = SqliteRunStore.open(openDatabase(path));
    expect((await other.get(run.runId)).status).toBe("QUEUED");
    await other.cancel(run.runId);
    expect((await store.get(run.runId)).status).toBe("CANCELED");
  });
});

describe("the event log", () => {
  it("records every status change in order, with actor, reason and error code", async () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = await store.create({ graphId: "g" });
    const { lease } = (await scheduler.claimRun(runId, { workerId: "w1", leaseMs: 1000 }))!;
    clock.advance(10);
    await lease.transition("WAITING_APPROVAL", { pending: [{ actionId: "a1" }], reason: "needs approval" });
    await store.resume(runId, { resume: { approved: true }, actor: "cli" });
    const again = (await scheduler.claimRun(runId, { workerId: "w2", leaseMs: 1000 }))!;
    await again.lease.transition("FAILED", { errorCode: "TOOL_FAILED", errorMessage: "boom" });
    expect((await store.events(runId)).map((e) => [e.from, e.to, e.actor, e.fencingToken])).toEqual([
      [null, "QUEUED", null, null],
      ["QUEUED", "RUNNING", "w1", 1],
      ["RUNNING", "WAITING_APPROVAL", "w1", 1],
      ["WAITING_APPROVAL", "QUEUED", "cli", 1],
      ["QUEUED", "RUNNING", "w2", 2],
      ["RUNNING", "FAILED", "w2", 2],
    ]);
    expect((await store.events(runId))[2]).toMatchObject({ reason: "needs approval", at: clock.now });
    expect((await store.events(runId))[5]).toMatchObject({ errorCode: "TOOL_FAILED" });
  });

  it("can be tailed across runs by event id", async () => {
    const { store } = freshStore();
    const a = (await store.create({ graphId: "g" })).runId;
    const seen = (await store.eventsAfter(0)).at(-1)!.eventId;
    const b = (await store.create({ graphId: "g" })).runId;
    await store.cancel(a);
    expect((await store.eventsAfter(seen)).map((e) => [e.runId, e.to])).toEqual([[b, "QUEUED"], [a, "CANCELED"]]);
    expect((await store.eventsAfter(seen, { runId: a })).map((e) => e.to)).toEqual(["CANCELED"]);
    expect(await store.eventsAfter(0, { limit: 1 })).toHaveLength(1);
  });

  it("refuses UPDATE and DELETE", async () => {
    const { store, db } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    expect(() => db.prepare("UPDATE run_events SET to_status = 'FAILED' WHERE run_id = ?").run(runId)).toThrow(/append-only/);
    expect(() => db.prepare("DELETE FROM run_events WHERE run_id = ?").run(runId)).toThrow(/append-only/);
    expect(await store.events(runId)).toHaveLength(1);
  });
});

describe("run payloads", () => {
  it("keeps pending while waiting, resume until the run waits or ends, and the result", async () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = await store.create({ graphId: "g" });
    await (await scheduler.claimRun(runId, { workerId: "w", leaseMs: 1000 }))!.lease.transition("WAITING_INPUT", { pending: { question: "which?" } });
    expect(await store.get(runId)).toMatchObject({ status: "WAITING_INPUT", pending: { question: "which?" }, lease: null });
    const { run, lease } = (await scheduler.claimRun(runId, { workerId: "w", leaseMs: 1000, resume: { answer: "this" } }))!;
    // Resuming after an answer continues the attempt that asked.
    expect(run).toMatchObject({ status: "RUNNING", pending: null, resume: { answer: "this" }, attempts: 1 });
    await lease.transition("SUCCEEDED", { result: { answer: 42 } });
    expect(await store.get(runId)).toMatchObject({ status: "SUCCEEDED", result: { answer: 42 }, resume: null, errorCode: null });
    expect((await store.get(runId)).finishedAt).not.toBeNull();
  });

  it("counts usage under the lease only", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    const { lease } = (await new Scheduler(store).claimRun(runId, { workerId: "w", leaseMs: 1000 }))!;
    await lease.addUsage({ steps: 1, modelCalls: 1, tokens: 120, costUsd: 0.25 });
    expect(await lease.addUsage({ steps: 1, tokens: 30, costUsd: 0.5 })).toEqual({ steps: 2, modelCalls: 1, tokens: 150, costUsd: 0.75 });
    expect(await thrown(() => store.addUsage(runId, lease.token + 1, { steps: 1 }))).toMatchObject({ code: "LEASE_LOST" });
    expect((await store.get(runId)).usage.steps).toBe(2);
  });

  it("refuses to resume a run that is not waiting", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    expect(await thrown(() => store.resume(runId))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
  });
});

describe("schema versions", () => {
  it("refuses a file written by a newer agentrt", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    SqliteRunStore.open(db);
    db.prepare("UPDATE agentrt_schema SET version = 99 WHERE module = 'runs'").run();
    const error = await thrown(() => SqliteRunStore.open(openDatabase(path)));
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: "DB_SCHEMA_TOO_NEW" });
  });

  it("stops a worker whose file is upgraded under it", async () => {
    const path = tempDbPath();
    const store = SqliteRunStore.open(openDatabase(path));
    openDatabase(path).prepare("UPDATE agentrt_schema SET version = 99 WHERE module = 'runs'").run();
    const worker = createWorker({ store, once: true, execute: async () => ({ status: "SUCCEEDED" }) });
    await expect(worker.run()).rejects.toMatchObject({ code: "DB_SCHEMA_TOO_NEW" });
  });
});
