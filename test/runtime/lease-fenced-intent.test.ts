// A worker whose lease is gone (taken over after expiry) writes no side-effect intent and makes no call:
// the intent is written through the run guard's lease check, in the ledger's own transaction.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { LeaseLostError, Scheduler } from "../../src/runs/index.js";
import { createBudgetGuard } from "../../src/runtime/budget-guard.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ledgerFor } from "../../src/ledger/executor.js";
import { createResilientExecutor } from "../../src/tools/resilient-executor.js";
import { freshStore } from "../runs/helpers.js";

function sender() {
  const sent: string[] = [];
  const tool = defineTool({
    name: "send", description: "send", risk: "write", idempotent: false, schema: z.object({ to: z.string() }),
    execute: (args) => {
      sent.push(args.to);
      return { sent: true };
    },
  });
  return { tool, sent };
}

describe("side-effect intents are fenced by the run's lease", () => {
  it("the holder writes its intent and calls; after a takeover the old holder is refused before any intent", async () => {
    const { db, store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const run = await store.create({ graphId: "g" });
    const first = (await scheduler.claimRun(run.runId, { workerId: "w1", leaseMs: 1_000 }))!;
    const guard = createBudgetGuard(first.run, first.lease, { pricing: {}, emit: () => undefined, clock });
    const { tool, sent } = sender();
    const execute = createResilientExecutor();
    const scope = (toolCallId: string) => ({ runId: run.runId, threadId: run.threadId, toolCallId, user: "u", db, guard });

    expect(await execute(tool, { to: "a" }, scope("call_1"))).toMatchObject({ ok: true });
    // w1 stalls past its lease; w2 takes the run over.
    clock.advance(1_001);
    expect((await scheduler.claimNext({ workerId: "w2", leaseMs: 1_000 }))?.run.runId).toBe(run.runId);

    const stale = execute(tool, { to: "b" }, scope("call_2"));
    await expect(stale).rejects.toBeInstanceOf(LeaseLostError);
    expect(first.lease.signal.aborted).toBe(true);
    expect(sent).toEqual(["a"]);
    expect((await ledgerFor(db).list(run.runId)).map((e) => e.toolCallId)).toEqual(["call_1"]);
  });

  it("a call still in flight at the takeover cannot record its result or its failure: the new holder decides", async () => {
    const { db, store, clock } = freshStore();
    const scheduler = new Scheduler(store);
    const run = await store.create({ graphId: "g" });
    const first = (await scheduler.claimRun(run.runId, { workerId: "w1", leaseMs: 1_000 }))!;
    const guard = createBudgetGuard(first.run, first.lease, { pricing: {}, emit: () => undefined, clock });
    const finish: Array<(outcome: "ok" | "fail") => void> = [];
    const tool = defineTool({
      name: "deploy", description: "deploy", risk: "write", idempotent: true, schema: z.object({ rev: z.string() }),
      execute: () => new Promise((resolve, reject) => finish.push((outcome) => (outcome === "ok" ? resolve({ deployed: true }) : reject(new Error("400 bad request"))))),
    });
    const execute = createResilientExecutor();
    const scope = (toolCallId: string) => ({ runId: run.runId, threadId: run.threadId, toolCallId, user: "u", db, guard });
    const succeeding = execute(tool, { rev: "a" }, scope("call_1"));
    const failing = execute(tool, { rev: "b" }, scope("call_2"));
    while (finish.length < 2) await new Promise((resolve) => setTimeout(resolve, 1));
    clock.advance(1_001);
    expect((await scheduler.claimNext({ workerId: "w2", leaseMs: 1_000 }))?.run.runId).toBe(run.runId);

    finish[0]!("ok");
    finish[1]!("fail");
    await expect(succeeding).rejects.toBeInstanceOf(LeaseLostError);
    await expect(failing).rejects.toBeInstanceOf(LeaseLostError);
    // Both intents stay pending: w2 re-issues them under their keys rather than trusting w1's late word.
    expect((await ledgerFor(db).list(run.runId)).map((e) => [e.toolCallId, e.status])).toEqual([["call_1", "pending"], ["call_2", "pending"]]);
  });
});
