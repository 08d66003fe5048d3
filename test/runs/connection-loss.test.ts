// The worker loop when its database server is lost (DB_UNREACHABLE, DB_CONNECTION_LOST): a real SQLite store behind
// a wrapper that fails the chosen calls as a lost PostgreSQL server does (test/runs/helpers.ts failingStore).
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";
import { LeaseLostError, SqliteRunStore, createWorker } from "../../src/runs/index.js";
import { failingStore, tempDbPath } from "./helpers.js";

// A real clock: leases here expire by the time that passes, as they do when a server is gone.
const realStore = (path = tempDbPath()) => SqliteRunStore.open(openDatabase(path));

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(5);
}

const codes = (errors: unknown[]) => errors.map((error) => (error as { code?: unknown }).code);

describe("the worker loop while the database server is lost", () => {
  it("backs off while claims fail, says so once, and claims every run once the server answers again", async () => {
    const real = realStore();
    for (let i = 0; i < 3; i++) await real.create({ graphId: "g" });
    let down = true;
    const { store, calls } = failingStore(real, "DB_UNREACHABLE", (method) => down && method !== "create");
    const errors: unknown[] = [];
    const worker = createWorker({ store, pollMs: 5, once: true, onError: (error) => errors.push(error), execute: async () => ({ status: "SUCCEEDED" }) });
    const done = worker.run();
    // The same outage polled every 5 ms would be about a hundred attempts; the backoff (0.1 s doubling) makes a few.
    await sleep(500);
    const attemptsWhileDown = Object.values(calls).reduce((sum, n) => sum + n, 0) - (calls.create ?? 0);
    down = false;
    const stats = await done;
    expect(attemptsWhileDown).toBeGreaterThan(0);
    expect(attemptsWhileDown).toBeLessThan(15);
    expect(stats).toMatchObject({ claimed: 3, finished: { SUCCEEDED: 3 } });
    expect(codes(errors)).toEqual(["DB_UNREACHABLE"]);
    expect(await real.list({ status: "SUCCEEDED" })).toHaveLength(3);
  });

  it("keeps running when the schema check or the look for pending work loses its connection", async () => {
    const real = realStore();
    await real.create({ graphId: "g" });
    // Each of these fails on its first calls; before, a failed schema check ended the worker's run() with the error.
    const { store } = failingStore(real, "DB_CONNECTION_LOST", (method, call) =>
      (method === "assertSchemaCurrent" && call <= 2) || (method === "hasPendingWork" && call <= 2));
    const errors: unknown[] = [];
    const stats = await createWorker({ store, pollMs: 5, once: true, onError: (error) => errors.push(error), execute: async () => ({ status: "SUCCEEDED" }) }).run();
    expect(stats).toMatchObject({ claimed: 1, finished: { SUCCEEDED: 1 } });
    expect(new Set(codes(errors))).toEqual(new Set(["DB_CONNECTION_LOST"]));
  });

  it("keeps a run going while a few heartbeats are refused, and says so once", async () => {
    const real = realStore();
    const { runId } = await real.create({ graphId: "g" });
    const { store, calls } = failingStore(real, "DB_CONNECTION_LOST", (method, call) => method === "renewLease" && call <= 3);
    const errors: unknown[] = [];
    let aborted = false;
    const stats = await createWorker({
      // The refused beats (3 × 20 ms) come long before the lease (5 s) would run out.
      store, leaseMs: 5000, heartbeatMs: 20, pollMs: 5, once: true, onError: (error) => errors.push(error),
      execute: async (_run, lease) => {
        lease.signal.addEventListener("abort", () => (aborted = true));
        await waitFor(() => (calls.renewLease ?? 0) >= 5);
        return { status: "SUCCEEDED" };
      },
    }).run();
    expect(aborted).toBe(false);
    expect(stats.finished).toEqual({ SUCCEEDED: 1 });
    expect(codes(errors)).toEqual(["DB_CONNECTION_LOST"]);
    expect((await real.get(runId)).attempts).toBe(1);
  });

  it("stops a run whose lease could not be renewed before it expired, and another worker recovers it after expiry", async () => {
    const path = tempDbPath();
    const real = realStore(path);
    const { runId } = await real.create({ graphId: "g" });
    let cut = false;
    // Worker A loses its server once the run has started: every call fails from then on, its writes included.
    const { store } = failingStore(real, "DB_CONNECTION_LOST", () => cut);
    let reason: unknown;
    const a = createWorker({
      store, workerId: "A", leaseMs: 300, heartbeatMs: 50, pollMs: 5, onError: () => undefined,
      execute: async (_run, lease) => {
        cut = true;
        await new Promise((resolve) => lease.signal.addEventListener("abort", resolve, { once: true }));
        reason = lease.signal.reason;
        throw reason;
      },
    });
    const running = a.run();
    await waitFor(() => reason !== undefined);
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(reason).toMatchObject({ reason: "lease-expired" });
    await waitFor(() => a.active === 0);
    await a.stop();
    expect((await running).lost).toBe(1);
    // A recorded nothing: the run is still RUNNING under A's expired lease, as after a crash.
    expect(await real.get(runId)).toMatchObject({ status: "RUNNING", lease: { owner: "A" } });

    const b = await createWorker({ store: realStore(path), workerId: "B", pollMs: 5, once: true, execute: async () => ({ status: "SUCCEEDED" }) }).run();
    expect(b.finished).toEqual({ SUCCEEDED: 1 });
    expect(await real.get(runId)).toMatchObject({ status: "SUCCEEDED", attempts: 2 });
    const events = await real.events(runId);
    expect(events.map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "RETRYING", "RUNNING", "SUCCEEDED"]);
    expect(events[2]).toMatchObject({ reason: "lease of A expired" });
  });

  it("stops a run whose heartbeat never comes back once its lease has expired", async () => {
    const real = realStore();
    const { runId } = await real.create({ graphId: "g" });
    let cut = false;
    const { store } = failingStore(real, "DB_CONNECTION_LOST", (method) => cut && method === "renewLease" ? "hang" : false);
    let reason: unknown;
    const stats = await createWorker({
      store, workerId: "A", leaseMs: 300, heartbeatMs: 50, pollMs: 5, once: true, onError: () => undefined,
      execute: async (run, lease) => {
        // The server stops answering renewals during the first attempt only.
        cut = run.attempts === 1;
        if (!cut) return { status: "SUCCEEDED" };
        await new Promise((resolve) => lease.signal.addEventListener("abort", resolve, { once: true }));
        reason = lease.signal.reason;
        throw reason;
      },
    }).run();
    expect(reason).toMatchObject({ code: "LEASE_LOST", reason: "lease-expired" });
    // The worker itself recovered the run once the lease had expired (its other calls still answer) and ran it again.
    expect(stats).toMatchObject({ lost: 1, finished: { SUCCEEDED: 1 } });
    expect((await real.events(runId)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "RETRYING", "RUNNING", "SUCCEEDED"]);
  });

  it("records an outcome whose write lost its connection once the server answers again, within the lease, instead of leaving the run to its lease's expiry", async () => {
    const real = realStore();
    const { runId } = await real.create({ graphId: "g" });
    // The server restarts as the run ends: its first outcome writes are cut off, then it answers again.
    const { store, calls } = failingStore(real, "DB_CONNECTION_LOST", (method, call) => method === "transition" && call <= 2);
    const errors: unknown[] = [];
    const stats = await createWorker({
      // A lease far longer than the test: only a write tried again can finish the run in time.
      store, leaseMs: 60_000, pollMs: 5, once: true, onError: (error) => errors.push(error),
      execute: async () => ({ status: "SUCCEEDED", result: "done" }),
    }).run();
    expect(stats).toMatchObject({ claimed: 1, finished: { SUCCEEDED: 1 }, lost: 0 });
    expect(calls.transition).toBe(3);
    expect((await real.events(runId)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "SUCCEEDED"]);
    expect(await real.get(runId)).toMatchObject({ status: "SUCCEEDED", attempts: 1, result: "done" });
    expect(errors).toEqual([]);
  }, 10_000);

  it("sends a run whose execution lost its connection to RETRYING, its attempt counted, and the next attempt finishes it", async () => {
    const store = realStore();
    const { runId } = await store.create({ graphId: "g" });
    const stats = await createWorker({
      store, pollMs: 5, once: true,
      execute: async (run) => {
        // What a checkpoint write cut off mid-run throws; the pool reconnects for the writes that follow.
        if (run.attempts === 1) throw new StorageError("DB_CONNECTION_LOST", "postgres@db:5432/test: connection to PostgreSQL lost (test)");
        return { status: "SUCCEEDED" };
      },
    }).run();
    expect(stats.finished).toEqual({ RETRYING: 1, SUCCEEDED: 1 });
    const events = await store.events(runId);
    expect(events.map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "RETRYING", "RUNNING", "SUCCEEDED"]);
    expect(events[2]?.reason).toMatch(/^connection: postgres@db:5432\/test: connection to PostgreSQL lost/);
    expect(await store.get(runId)).toMatchObject({ status: "SUCCEEDED", attempts: 2 });
  });
});
