// A tool backing off shows the run RETRYING (logged), RUNNING again when the attempt starts; the lease stays held meanwhile.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore, Scheduler, type RunRecord } from "../../src/runs/index.js";
import { Runtime, type RuntimeEvent } from "../../src/runtime/index.js";
import { counters, resetCounters } from "../fixtures/budget/graphs.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const CONFIG = fileURLToPath(new URL("../fixtures/budget/langgraph.json", import.meta.url));

let db: string;
beforeEach(async () => {
  resetCounters();
  db = join(mkdtempSync(join(tmpdir(), "agentrt-retrying-")), "r.db");
});

describe("RETRYING while a tool backs off", () => {
  let runtime: Runtime | undefined;
  afterEach(() => runtime?.close());

  it("passes through RETRYING, ends SUCCEEDED, and no other worker can claim it while it backs off", async () => {
    const elsewhere = new Scheduler(SqliteRunStore.open(openDatabase(db)));
    const looks: Promise<{ status: string; row: RunRecord; claimNext: unknown; claimRun: unknown }>[] = [];
    const onEvent = (event: RuntimeEvent) => {
      if (event.type !== "status" || event.status !== "RETRYING") return;
      // Another process's worker tries to take the run at this moment (the tool is still backing off).
      looks.push((async () => ({
        status: event.status,
        row: await elsewhere.store.get(event.runId),
        claimNext: await elsewhere.claimNext({ workerId: "intruder", leaseMs: 5000 }),
        claimRun: await elsewhere.claimRun(event.runId, { workerId: "intruder", leaseMs: 5000 }),
      }))());
    };
    runtime = Runtime.open({ db, config: CONFIG, onEvent, workerId: "w1" });
    const view = await runtime.submit({ graph: "flaky", message: "fetch x" });
    expect(view.status).toBe("SUCCEEDED");
    expect(counters.toolCalls.flaky_fetch).toBe(2);
    const seen = await Promise.all(looks);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ row: { status: "RETRYING", lease: { owner: "w1" } }, claimNext: undefined, claimRun: undefined });
    const events = await runtimeInternals(runtime).runs.events(view.run_id);
    expect(events.map((e) => e.to)).toEqual(["QUEUED", "RUNNING", "RETRYING", "RUNNING", "SUCCEEDED"]);
    // One claim: the backoff kept the lease, token and attempt.
    expect(new Set(events.slice(1).map((e) => e.fencingToken))).toEqual(new Set([events[1]?.fencingToken]));
    expect(events[2]?.reason).toMatch(/flaky_fetch attempt 1 failed/);
    expect(await runtimeInternals(runtime).runs.get(view.run_id)).toMatchObject({ attempts: 1, lease: null });
  });
});
