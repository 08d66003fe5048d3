import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler, WorkerStoppingError, executeClaimed } from "../../src/runs/index.js";
import { freshStore } from "./helpers.js";

describe("executeClaimed", () => {
  it("resumes a waiting run inline: claim with the resume value, execute, record", async () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = await store.create({ graphId: "g" });
    await (await scheduler.claimNext({ workerId: "w", leaseMs: 1000 }))!.lease.transition("WAITING_APPROVAL", { pending: { actionId: "a1" } });
    const claimed = (await scheduler.claimRun(runId, { workerId: "cli", leaseMs: 1000, resume: { approved: true } }))!;
    const result = await executeClaimed(claimed, async (run) => ({ status: "SUCCEEDED", result: run.resume }));
    expect(result).toMatchObject({ kind: "recorded", run: { status: "SUCCEEDED", result: { approved: true } } });
    expect((await store.events(runId)).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "WAITING_APPROVAL", "RUNNING", "SUCCEEDED"]);
  });

  it("reports a lost lease instead of recording over a canceled run", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    const claimed = (await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 }))!;
    const result = await executeClaimed(claimed, async () => {
      await store.cancel(runId);
      return { status: "SUCCEEDED" };
    });
    expect(result).toMatchObject({ kind: "lost", error: { code: "LEASE_LOST", reason: "canceled" } });
    expect((await store.get(runId)).status).toBe("CANCELED");
  });

  it("aborts the run within about a second when another connection cancels it, long before its heartbeat", async () => {
    const { store, path } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    // Real time here: the lease watch reads the file every second; this lease's heartbeat would come after 10 minutes.
    const claimed = (await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1_800_000 }))!;
    const elsewhere = SqliteRunStore.open(openDatabase(path));
    const result = await executeClaimed(claimed, async (_run, lease) => {
      await elsewhere.cancel(runId, { actor: "ops" });
      // Nothing here reads the run: only the watch can end this wait.
      await new Promise((resolve) => lease.signal.addEventListener("abort", resolve, { once: true }));
      throw lease.signal.reason;
    });
    expect(result).toMatchObject({ kind: "lost", error: { code: "LEASE_LOST", reason: "canceled" } });
    elsewhere.db.close();
  });

  it("fails a run whose execute returns nothing and leaves it RUNNING", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    const claimed = (await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 }))!;
    await executeClaimed(claimed, async () => undefined);
    expect(await store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "INTERNAL" });
  });

  it("accepts an execute that ended the lease itself", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    const claimed = (await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 }))!;
    const result = await executeClaimed(claimed, async (_run, lease) => {
      await lease.transition("WAITING_INPUT", { pending: { question: "?" } });
    });
    expect(result).toMatchObject({ kind: "recorded", run: { status: "WAITING_INPUT" } });
    expect((await store.get(runId)).status).toBe("WAITING_INPUT");
  });

  it("records an outcome returned after the worker began stopping; releases only on a throw", async () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const finished = (await store.create({ graphId: "g" })).runId;
    const first = (await scheduler.claimNext({ workerId: "w", leaseMs: 1000 }))!;
    const kept = await executeClaimed(first, async (_run, lease) => {
      lease.abort(new WorkerStoppingError("w"));
      return { status: "SUCCEEDED", result: "done anyway" };
    });
    expect(kept).toMatchObject({ kind: "recorded", run: { runId: finished, status: "SUCCEEDED" } });
    const handedBack = (await store.create({ graphId: "g" })).runId;
    const second = (await scheduler.claimNext({ workerId: "w", leaseMs: 1000 }))!;
    const released = await executeClaimed(second, async (_run, lease) => {
      lease.abort(new WorkerStoppingError("w"));
      throw lease.signal.reason;
    });
    expect(released).toMatchObject({ kind: "released", run: { runId: handedBack, status: "RETRYING" } });
  });

  it("fails with the thrown error's code when execute throws for its own reasons", async () => {
    const { store } = freshStore();
    const { runId } = await store.create({ graphId: "g" });
    const claimed = (await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 }))!;
    await executeClaimed(claimed, async (_run, lease) => {
      lease.abort(new Error("runtime gave up"));
      throw new ToolError("TOOL_TIMEOUT", "slow tool");
    });
    expect(await store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "TOOL_TIMEOUT", errorMessage: "slow tool" });
  });
});
