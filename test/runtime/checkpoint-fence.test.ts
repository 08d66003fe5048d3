// Checkpoints are written under the run's lease: a holder whose run was canceled (or taken over)
// elsewhere cannot write one, and usage commits with the checkpoint writes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LeaseLostError, SqliteRunStore, Scheduler } from "../../src/runs/index.js";
import { openDatabase } from "../../src/db/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { fenceCheckpoints } from "../../src/runtime/checkpoint-fence.js";
import { sqliteCheckpointHook } from "../../src/runtime/storage/sqlite-storage.js";
import { FENCING_TOKEN_KEY } from "../../src/runs/index.js";
import { runtimeInternals, runtimeSqlite } from "../../src/runtime/internals.js";

const tempDb = () => join(mkdtempSync(join(tmpdir(), "agentrt-fence-")), "f.db");

/** A run claimed by worker "w" on a fresh file, and the fence over its lease. */
async function claimedRun() {
  const db = openDatabase(tempDb());
  const runs = SqliteRunStore.open(db);
  const run = await runs.create({ graphId: "g", input: {}, userId: "u" });
  const claimed = (await new Scheduler(runs).claimRun(run.runId, { workerId: "w", leaseMs: 60_000 }))!;
  return { db, runs, run, claimed, fence: sqliteCheckpointHook(fenceCheckpoints(runs, new Map([[run.runId, claimed.lease]])), db) };
}

describe("checkpoint fence", () => {
  it("refuses the checkpoint write of a run canceled by another process: nothing of that step is stored", async () => {
    const config = fileURLToPath(new URL("../fixtures/fence/langgraph.json", import.meta.url));
    const runtime = Runtime.open({ db: tempDb(), config });
    try {
      const view = await runtime.submit({ graph: "cancel_elsewhere", input: {} });
      expect(view.status).toBe("CANCELED");
      const thread = (await runtimeInternals(runtime).runs.get(view.run_id)).threadId;
      const writes = runtimeSqlite(runtime).prepare("SELECT COUNT(*) AS n FROM checkpoint_writes WHERE thread_id = ? AND task_id IN (SELECT task_id FROM checkpoint_writes WHERE channel = 'steps')").get(thread) as { n: number };
      expect(writes.n).toBe(0);
      const graph = (await runtime.registry.load("cancel_elsewhere")) as unknown as { getState(c: object): Promise<{ values: { steps?: string[] }; next: string[] }> };
      const state = await graph.getState({ configurable: { thread_id: thread } });
      // The node ran, but its step never reached the checkpoints: "after" never ran either.
      expect(state.values.steps ?? []).toEqual([]);
      expect(state.next).toEqual(["cancel_elsewhere"]);
    } finally {
      await runtime.close();
    }
  });

  it("passes writes of the current holder (flushing its deferred usage) and of writers outside a run", async () => {
    const { db, runs, run, claimed, fence } = await claimedRun();
    try {
      claimed.lease.deferUsage({ modelCalls: 1, tokens: 7 });
      fence({ configurable: { run_id: run.runId, [FENCING_TOKEN_KEY]: claimed.lease.token } });
      expect((await runs.get(run.runId)).usage).toMatchObject({ modelCalls: 1, tokens: 7 });
      fence({ configurable: { thread_id: "t" } });
      // A stale token (an execution this process no longer tracks) is checked against the record.
      expect(() => fence({ configurable: { run_id: run.runId, [FENCING_TOKEN_KEY]: claimed.lease.token + 1 } })).toThrow(LeaseLostError);
      await runs.cancel(run.runId, { actor: "elsewhere" });
      expect(() => fence({ configurable: { run_id: run.runId, [FENCING_TOKEN_KEY]: claimed.lease.token } })).toThrow(LeaseLostError);
      expect(claimed.lease.signal.aborted).toBe(true);
    } finally {
      db.close();
    }
  });

  it("a checkpoint write that does not commit defers its usage again: counted once, by the next write", async () => {
    const { db, runs, run, claimed, fence } = await claimedRun();
    try {
      const config = { configurable: { run_id: run.runId, [FENCING_TOKEN_KEY]: claimed.lease.token } };
      claimed.lease.deferUsage({ modelCalls: 1, tokens: 7 });
      // The checkpoint's transaction rolls back after the fence wrote the usage.
      db.exec("BEGIN IMMEDIATE");
      const undo = fence(config);
      db.exec("ROLLBACK");
      expect(typeof undo).toBe("function");
      (undo as () => void)();
      expect((await runs.get(run.runId)).usage).toMatchObject({ modelCalls: 0, tokens: 0 });
      fence(config);
      expect((await runs.get(run.runId)).usage).toMatchObject({ modelCalls: 1, tokens: 7 });
    } finally {
      db.close();
    }
  });
});
