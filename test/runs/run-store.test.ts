import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";
import { SqliteRunStore, Scheduler, UnknownRunError, createWorker, newRunId } from "../../src/runs/index.js";
import { freshStore, tempDbPath, thrown } from "./helpers.js";

describe("SqliteRunStore.create and reads", () => {
  it("writes a QUEUED run with defaults and its first event", () => {
    const { store, clock } = freshStore();
    const run = store.create({ graphId: "ops_rollback", input: { message: "hi" } });
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
    expect(store.events(run.runId)).toEqual([
      expect.objectContaining({ runId: run.runId, from: null, to: "QUEUED", at: clock.now }),
    ]);
  });

  it("keeps a given run id, thread id, user, budget and metadata", () => {
    const { store } = freshStore();
    const run = store.create({
      graphId: "g", runId: "run_custom", threadId: "thread_shared", userId: "ann", priority: 5,
      budget: { maxSteps: 10, maxCostUsd: 0.5 }, metadata: { source: "test" }, deadlineAt: 123, maxAttempts: 7,
    });
    expect(run).toMatchObject({
      runId: "run_custom", threadId: "thread_shared", userId: "ann", priority: 5,
      budget: { maxSteps: 10, maxCostUsd: 0.5 }, metadata: { source: "test" }, deadlineAt: 123, maxAttempts: 7,
    });
  });

  it("refuses a taken run id and non-integer numbers with BAD_INPUT", () => {
    const { store } = freshStore();
    store.create({ graphId: "g", runId: "run_same" });
    expect(thrown(() => store.create({ graphId: "g", runId: "run_same" }))).toMatchObject({ code: "BAD_INPUT" });
    expect(thrown(() => store.create({ graphId: "g", priority: 1.5 }))).toMatchObject({ code: "BAD_INPUT" });
    expect(thrown(() => store.create({ graphId: "g", maxAttempts: 0 }))).toMatchObject({ code: "BAD_INPUT" });
    expect(store.list()).toHaveLength(1);
  });

  it("makes unique run ids that sort by creation time", () => {
    const ids = Array.from({ length: 2000 }, (_, i) => newRunId(1_700_000_000_000 + Math.floor(i / 100)));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("throws UNKNOWN_RUN for a missing run", () => {
    const { store } = freshStore();
    const error = thrown(() => store.get("run_nope"));
    expect(error).toBeInstanceOf(UnknownRunError);
    expect(error).toMatchObject({ code: "UNKNOWN_RUN" });
    expect(store.find("run_nope")).toBeUndefined();
  });

  it("a cancel records who canceled and why in the error message (never empty)", () => {
    const { store } = freshStore();
    const plain = store.create({ graphId: "g" });
    const told = store.create({ graphId: "g" });
    expect(store.cancel(plain.runId)).toMatchObject({ errorCode: "CANCELED", errorMessage: "canceled" });
    expect(store.cancel(told.runId, { actor: "ops", reason: "wrong order" })).toMatchObject({
      errorCode: "CANCELED", errorMessage: "canceled by ops: wrong order",
    });
  });

  it("lists by status, user, graph and thread", () => {
    const { store } = freshStore();
    const a = store.create({ graphId: "g1", userId: "ann" });
    const b = store.create({ graphId: "g2", userId: "bob", threadId: "t1" });
    store.create({ graphId: "g2", userId: "bob" });
    store.cancel(a.runId);
    expect(store.list({ status: "CANCELED" }).map((r) => r.runId)).toEqual([a.runId]);
    expect(store.list({ status: ["QUEUED", "CANCELED"] })).toHaveLength(3);
    expect(store.list({ userId: "bob" })).toHaveLength(2);
    expect(store.list({ graphId: "g2", threadId: "t1" }).map((r) => r.runId)).toEqual([b.runId]);
    expect(store.list({ order: "newest", limit: 2 }).map((r) => r.runId)).toEqual(
      store.list().map((r) => r.runId).reverse().slice(0, 2),
    );
  });

  it("is shared by two connections to the same file", () => {
    const { store, path } = freshStore();
    const run = store.create({ graphId: "g" });
    const other = SqliteRunStore.open(openDatabase(path));
    expect(other.get(run.runId).status).toBe("QUEUED");
    other.cancel(run.runId);
    expect(store.get(run.runId).status).toBe("CANCELED");
  });
});

describe("the event log", () => {
  it("records every status change in order, with actor, reason and error code", () => {
    const { store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = store.create({ graphId: "g" });
    const { lease } = scheduler.claimRun(runId, { workerId: "w1", leaseMs: 1000 })!;
    clock.advance(10);
    lease.transition("WAITING_APPROVAL", { pending: [{ actionId: "a1" }], reason: "needs approval" });
    store.resume(runId, { resume: { approved: true }, actor: "cli" });
    const again = scheduler.claimRun(runId, { workerId: "w2", leaseMs: 1000 })!;
    again.lease.transition("FAILED", { errorCode: "TOOL_FAILED", errorMessage: "boom" });
    expect(store.events(runId).map((e) => [e.from, e.to, e.actor, e.fencingToken])).toEqual([
      [null, "QUEUED", null, null],
      ["QUEUED", "RUNNING", "w1", 1],
      ["RUNNING", "WAITING_APPROVAL", "w1", 1],
      ["WAITING_APPROVAL", "QUEUED", "cli", 1],
      ["QUEUED", "RUNNING", "w2", 2],
      ["RUNNING", "FAILED", "w2", 2],
    ]);
    expect(store.events(runId)[2]).toMatchObject({ reason: "needs approval", at: clock.now });
    expect(store.events(runId)[5]).toMatchObject({ errorCode: "TOOL_FAILED" });
  });

  it("can be tailed across runs by event id", () => {
    const { store } = freshStore();
    const a = store.create({ graphId: "g" }).runId;
    const seen = store.eventsAfter(0).at(-1)!.eventId;
    const b = store.create({ graphId: "g" }).runId;
    store.cancel(a);
    expect(store.eventsAfter(seen).map((e) => [e.runId, e.to])).toEqual([[b, "QUEUED"], [a, "CANCELED"]]);
    expect(store.eventsAfter(seen, { runId: a }).map((e) => e.to)).toEqual(["CANCELED"]);
    expect(store.eventsAfter(0, { limit: 1 })).toHaveLength(1);
  });

  it("refuses UPDATE and DELETE", () => {
    const { store, db } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    expect(() => db.prepare("UPDATE run_events SET to_status = 'FAILED' WHERE run_id = ?").run(runId)).toThrow(/append-only/);
    expect(() => db.prepare("DELETE FROM run_events WHERE run_id = ?").run(runId)).toThrow(/append-only/);
    expect(store.events(runId)).toHaveLength(1);
  });
});

describe("run payloads", () => {
  it("keeps pending while waiting, resume until the run waits or ends, and the result", () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = store.create({ graphId: "g" });
    scheduler.claimRun(runId, { workerId: "w", leaseMs: 1000 })!.lease.transition("WAITING_INPUT", { pending: { question: "which?" } });
    expect(store.get(runId)).toMatchObject({ status: "WAITING_INPUT", pending: { question: "which?" }, lease: null });
    const { run, lease } = scheduler.claimRun(runId, { workerId: "w", leaseMs: 1000, resume: { answer: "this" } })!;
    // Resuming after an answer continues the attempt that asked.
    expect(run).toMatchObject({ status: "RUNNING", pending: null, resume: { answer: "this" }, attempts: 1 });
    lease.transition("SUCCEEDED", { result: { answer: 42 } });
    expect(store.get(runId)).toMatchObject({ status: "SUCCEEDED", result: { answer: 42 }, resume: null, errorCode: null });
    expect(store.get(runId).finishedAt).not.toBeNull();
  });

  it("counts usage under the lease only", () => {
    const { store } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    const { lease } = new Scheduler(store).claimRun(runId, { workerId: "w", leaseMs: 1000 })!;
    lease.addUsage({ steps: 1, modelCalls: 1, tokens: 120, costUsd: 0.25 });
    expect(lease.addUsage({ steps: 1, tokens: 30, costUsd: 0.5 })).toEqual({ steps: 2, modelCalls: 1, tokens: 150, costUsd: 0.75 });
    expect(thrown(() => store.addUsage(runId, lease.token + 1, { steps: 1 }))).toMatchObject({ code: "LEASE_LOST" });
    expect(store.get(runId).usage.steps).toBe(2);
  });

  it("refuses to resume a run that is not waiting", () => {
    const { store } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    expect(thrown(() => store.resume(runId))).toMatchObject({ code: "ILLEGAL_TRANSITION" });
  });
});

describe("schema versions", () => {
  it("refuses a file written by a newer agentrt", () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    SqliteRunStore.open(db);
    db.prepare("UPDATE agentrt_schema SET version = 99 WHERE module = 'runs'").run();
    const error = thrown(() => SqliteRunStore.open(openDatabase(path)));
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
