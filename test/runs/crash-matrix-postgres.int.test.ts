// The crash matrix on PostgreSQL (issue 18): an `agentrt worker` process executing an approved ops_rollback is
// SIGKILLed at 30, 50, 70 and 90 % of the run, and another worker process recovers it: SUCCEEDED, with exactly one
// rollback on the simulated platform and one done entry in the ledger. "% of the run" counts the state writes the
// worker sends to the database for it (checkpoints, ledger, platform, usage, status; heartbeats and trace left out):
// a reference run gives their number N, and the killed worker is held before sending write round(p·N) — the same
// point on every machine, however busy (see fixtures/hold-at-write.ts). The cases run one after another: run at once
// (describe.concurrent) on a loaded 2-core machine, none finished within 90 s — not yet understood.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { approvedRollback } from "../helpers/approved-rollback.js";
import { useTestSchema } from "../helpers/postgres.js";
import { startWorker, until, type WorkerProcess } from "../helpers/worker-process.js";

const schema = useTestSchema(import.meta.url);
const WORKER = new URL("fixtures/preloaded-worker.ts", import.meta.url).pathname;
/** Short, so the second worker recovers the run soon after the kill; the first worker's graphs are loaded before it claims. */
const LEASE = ["--lease-ms", "1500"];

const opened: Runtime[] = [];
const started: WorkerProcess[] = [];
afterAll(async () => {
  for (const worker of started) worker.proc.kill("SIGKILL");
  for (const rt of opened) await rt.close();
});

async function approved() {
  const { url } = schema.fresh();
  const s = await approvedRollback(url);
  opened.push(s.rt);
  return { ...s, url };
}

function worker(url: string, id: string, args: string[], holdAt: number): WorkerProcess {
  const proc = startWorker(url, ["--worker-id", id, ...LEASE, ...args], { script: WORKER, env: { HOLD_AT_WRITE: String(holdAt) } });
  started.push(proc);
  return proc;
}

/** State writes of one uninterrupted execution of the approved run, by the same worker as the killed ones. */
let totalWrites = 0;
beforeAll(async () => {
  const s = await approved();
  const exit = await worker(s.url, "reference", ["--once"], 0).exit;
  expect(exit, exit.stderr).toMatchObject({ code: 0 });
  expect((await s.rt.get(s.runId)).status).toBe("SUCCEEDED");
  totalWrites = Number(/^writes: (\d+)$/m.exec(exit.stderr)?.[1]);
  // Claim, ledger intent and result, the platform's rollback and verify, four checkpoints, the outcome at least.
  expect(totalWrites).toBeGreaterThanOrEqual(10);
}, 90_000);

describe("SIGKILL an agentrt worker during an approved ops_rollback on PostgreSQL; another worker recovers it", () => {
  it.each([30, 50, 70, 90])("at %i percent of its writes: SUCCEEDED with exactly one rollback", async (percent) => {
    const s = await approved();
    const holdAt = Math.max(1, Math.round((percent / 100) * totalWrites));
    const first = worker(s.url, "w1", [], holdAt);
    await until("w1's claim", async () => (await s.rt.get(s.runId)).status === "RUNNING", [first]);
    // w2 starts while w1 heartbeats (so it cannot claim the run yet) and recovers the run once w1's lease expires.
    const recovering = worker(s.url, "w2", ["--once"], 0);
    await until(`w1 holding at write ${holdAt} of ${totalWrites}`, () => first.stderr().includes(`holding at write ${holdAt}:`), [first]);
    const atKill = await runtimeInternals(s.rt).runs.get(s.runId);
    expect(atKill, first.stderr()).toMatchObject({ status: "RUNNING", lease: { owner: "w1" } });
    expect((await first.kill()).signal).toBe("SIGKILL");

    const second = await recovering.exit;
    expect(second, second.stderr).toMatchObject({ code: 0 });
    const run = await s.rt.get(s.runId);
    expect(run.status).toBe("SUCCEEDED");
    expect(JSON.stringify(run.result)).toContain("Rolled back to rev-184");
    expect(await s.rollbacks()).toBe(1);
    expect(await s.rollbackEntries()).toEqual([expect.objectContaining({ status: "done", externalOperationId: expect.stringMatching(/^op_deploy_/) })]);
    // w1's claim ended in a lost lease, and w2 finished the run under the next token.
    const events = await runtimeInternals(s.rt).runs.events(s.runId);
    expect(events.filter((e) => e.fencingToken === atKill.fencingToken).map((e) => [e.to, e.errorCode])).toEqual([["RUNNING", null], ["RETRYING", "LEASE_LOST"]]);
    expect(events.at(-1)).toMatchObject({ to: "SUCCEEDED", actor: "w2" });
  }, 90_000);
});
