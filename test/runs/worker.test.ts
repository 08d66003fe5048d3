import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { ToolError } from "../../src/errors.js";
import { LeaseLostError, SqliteRunStore, createWorker, type RunOutcome } from "../../src/runs/index.js";
import { tempDbPath } from "./helpers.js";

const realStore = () => SqliteRunStore.open(openDatabase(tempDbPath()));

/** Resolves when the signal aborts, rejecting with its reason (what a well-behaved execute does). */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }));

async function waitFor(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await sleep(5);
}

describe("createWorker", () => {
  it("executes every run, at most `concurrency` at once, and records each outcome", async () => {
    const store = realStore();
    const spans: { start: number; end: number }[] = [];
    for (let i = 0; i < 12; i++) await store.create({ graphId: "g", input: { i } });
    let seq = 0;
    const worker = createWorker({
      store, concurrency: 3, pollMs: 5, once: true,
      execute: async (run) => {
        const span = { start: seq++, end: -1 };
        spans.push(span);
        await sleep(5);
        span.end = seq++;
        return { status: "SUCCEEDED", result: { doubled: (run.input as { i: number }).i * 2 } };
      },
    });
    const stats = await worker.run();
    expect(stats).toMatchObject({ claimed: 12, finished: { SUCCEEDED: 12 }, lost: 0 });
    expect(await store.list({ status: "SUCCEEDED" })).toHaveLength(12);
    expect((await store.list()).every((r) => (r.result as { doubled: number }).doubled === (r.input as { i: number }).i * 2)).toBe(true);
    // Overlap from recorded order: at no point were more than 3 executions open.
    const maxOpen = Math.max(...spans.map((s) => spans.filter((o) => o.start <= s.start && o.end > s.start).length));
    expect(maxOpen).toBeLessThanOrEqual(3);
    expect(maxOpen).toBeGreaterThan(1);
  });

  it("maps outcomes and thrown errors to statuses", async () => {
    const store = realStore();
    const outcomes: Record<string, RunOutcome | Error> = {
      ok: { status: "SUCCEEDED", result: 1 },
      wait: { status: "WAITING_APPROVAL", pending: { actionId: "a1" } },
      ask: { status: "WAITING_INPUT", pending: { question: "which city?" } },
      bad: { status: "FAILED", errorCode: "MODEL_OUTPUT_INVALID", errorMessage: "no JSON" },
      boom: new ToolError("TOOL_FAILED", "the tool broke"),
      weird: new Error("plain"),
    };
    const ids = Object.fromEntries(await Promise.all(Object.keys(outcomes).map(async (name) => [name, (await store.create({ graphId: "g", input: name })).runId])));
    const stats = await createWorker({
      store, pollMs: 5, once: true,
      execute: async (run) => {
        const outcome = outcomes[run.input as string]!;
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
    }).run();
    expect(stats.finished).toEqual({ SUCCEEDED: 1, WAITING_APPROVAL: 1, WAITING_INPUT: 1, FAILED: 3 });
    expect(await store.get(ids.wait)).toMatchObject({ status: "WAITING_APPROVAL", pending: { actionId: "a1" }, lease: null });
    expect(await store.get(ids.bad)).toMatchObject({ status: "FAILED", errorCode: "MODEL_OUTPUT_INVALID", errorMessage: "no JSON" });
    expect(await store.get(ids.boom)).toMatchObject({ status: "FAILED", errorCode: "TOOL_FAILED" });
    expect(await store.get(ids.weird)).toMatchObject({ status: "FAILED", errorCode: "INTERNAL" });
  });

  it("retries a run that asks for it, then lets the next attempt succeed", async () => {
    const store = realStore();
    const { runId } = await store.create({ graphId: "g" });
    const stats = await createWorker({
      store, pollMs: 5, once: true,
      execute: async (run) => (run.attempts === 1 ? { status: "RETRYING", delayMs: 10, errorCode: "TOOL_TIMEOUT" } : { status: "SUCCEEDED" }),
    }).run();
    expect(stats.finished).toEqual({ RETRYING: 1, SUCCEEDED: 1 });
    expect((await store.events(runId)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "RETRYING", "RUNNING", "SUCCEEDED"]);
  });

  it("aborts the execute signal when the run is canceled, and records nothing more", async () => {
    const store = realStore();
    const { runId } = await store.create({ graphId: "g" });
    let started = false;
    let seenReason: unknown;
    const worker = createWorker({
      store, leaseMs: 5000, heartbeatMs: 10, pollMs: 5, once: true,
      execute: async (_run, lease) => {
        started = true;
        lease.signal.addEventListener("abort", () => (seenReason = lease.signal.reason));
        return untilAborted(lease.signal);
      },
    });
    const done = worker.run();
    await waitFor(() => started);
    await store.cancel(runId, { actor: "test" });
    const stats = await done;
    expect(seenReason).toBeInstanceOf(LeaseLostError);
    expect(seenReason).toMatchObject({ reason: "canceled" });
    expect(stats).toMatchObject({ lost: 1, finished: {} });
    expect((await store.events(runId)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "CANCELED"]);
  });

  it("heartbeats while a run executes", async () => {
    const store = realStore();
    await store.create({ graphId: "g" });
    const stats = await createWorker({
      store, leaseMs: 60_000, heartbeatMs: 5, pollMs: 5, once: true,
      execute: async (_run, lease) => {
        const first = lease.expiresAt;
        await waitFor(async () => lease.expiresAt > first && (await store.get(lease.runId)).lease!.expiresAt > first);
        return { status: "SUCCEEDED" };
      },
    }).run();
    expect(stats.finished).toEqual({ SUCCEEDED: 1 });
  });

  it("stop({ abort: true }) aborts active runs and hands them back", async () => {
    const store = realStore();
    const { runId } = await store.create({ graphId: "g" });
    let started = false;
    const worker = createWorker({
      store, pollMs: 5,
      execute: async (_run, lease) => {
        started = true;
        return untilAborted(lease.signal);
      },
    });
    const done = worker.run();
    await waitFor(() => started);
    await worker.stop({ abort: true });
    expect(await done).toMatchObject({ released: 1 });
    expect(await store.get(runId)).toMatchObject({ status: "RETRYING", lease: null });
  });

  it("with once, waits for another worker's live lease before exiting", async () => {
    const store = realStore();
    const { runId } = await store.create({ graphId: "g" });
    let release: () => void = () => {};
    const holder = createWorker({
      store, workerId: "holder", pollMs: 5, once: true,
      execute: () => new Promise((resolve) => (release = () => resolve({ status: "SUCCEEDED" }))),
    });
    const holding = holder.run();
    await waitFor(() => holder.active === 1);
    let exited = false;
    const idle = createWorker({ store, workerId: "idle", pollMs: 5, once: true, execute: async () => ({ status: "SUCCEEDED" }) });
    const idling = idle.run().then((stats) => ((exited = true), stats));
    await sleep(50);
    expect(exited).toBe(false);
    release();
    await holding;
    expect((await idling).claimed).toBe(0);
    expect((await store.get(runId)).status).toBe("SUCCEEDED");
  });
});
