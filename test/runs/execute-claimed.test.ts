import { describe, expect, it } from "vitest";
import { Scheduler, executeClaimed } from "../../src/runs/index.js";
import { freshStore } from "./helpers.js";

describe("executeClaimed", () => {
  it("resumes a waiting run inline: claim with the resume value, execute, record", async () => {
    const { store } = freshStore();
    const scheduler = new Scheduler(store);
    const { runId } = store.create({ graphId: "g" });
    scheduler.claimNext({ workerId: "w", leaseMs: 1000 })!.lease.transition("WAITING_APPROVAL", { pending: { actionId: "a1" } });
    const claimed = scheduler.claimRun(runId, { workerId: "cli", leaseMs: 1000, resume: { approved: true } })!;
    const result = await executeClaimed(claimed, async (run) => ({ status: "SUCCEEDED", result: run.resume }));
    expect(result).toMatchObject({ kind: "recorded", run: { status: "SUCCEEDED", result: { approved: true } } });
    expect(store.events(runId).map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "WAITING_APPROVAL", "RUNNING", "SUCCEEDED"]);
  });

  it("reports a lost lease instead of recording over a canceled run", async () => {
    const { store } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    const claimed = new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 })!;
    const result = await executeClaimed(claimed, async () => {
      store.cancel(runId);
      return { status: "SUCCEEDED" };
    });
    expect(result).toMatchObject({ kind: "lost", error: { code: "LEASE_LOST", reason: "canceled" } });
    expect(store.get(runId).status).toBe("CANCELED");
  });

  it("fails a run whose execute returns nothing and leaves it RUNNING", async () => {
    const { store } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    const claimed = new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 })!;
    await executeClaimed(claimed, async () => undefined);
    expect(store.get(runId)).toMatchObject({ status: "FAILED", errorCode: "INTERNAL" });
  });

  it("accepts an execute that ended the lease itself", async () => {
    const { store } = freshStore();
    const { runId } = store.create({ graphId: "g" });
    const claimed = new Scheduler(store).claimNext({ workerId: "w", leaseMs: 1000 })!;
    const result = await executeClaimed(claimed, async (_run, lease) => {
      lease.transition("WAITING_INPUT", { pending: { question: "?" } });
    });
    expect(result).toMatchObject({ kind: "recorded", run: { status: "WAITING_INPUT" } });
    expect(store.get(runId).status).toBe("WAITING_INPUT");
  });
});
