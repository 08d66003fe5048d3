// Failover on PostgreSQL (issue 36, item 3): an `agentrt worker` process SIGKILLed mid-run loses its liveness lock
// with its connection, and another worker process takes the run over at its next look — long before the dead
// worker's 120 s lease would have expired — and finishes it with exactly one rollback on the simulated platform.
// The proof is in the run's events (the takeover's time against the dead lease's expiry), not a wall clock.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PostgresDatabase } from "../../src/db/postgres/index.js";
import type { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { approvedRollback } from "../helpers/approved-rollback.js";
import { useTestSchema } from "../helpers/postgres.js";
import { startWorker, until, type WorkerProcess } from "../helpers/worker-process.js";

const schema = useTestSchema(import.meta.url);
const WORKER = new URL("fixtures/preloaded-worker.ts", import.meta.url).pathname;
/**
 * Far longer than the takeover may take, and than a worker's cold start on a loaded machine (over a minute seen):
 * a recovery by lease expiry shows as an event at or after it.
 */
const LEASE = ["--lease-ms", "120000"];
/** How long a worker process may take to start (tsx compiling the sources) before the test gives up. */
const START_MS = 150_000;

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

/** State writes of one uninterrupted execution of the approved run (the kill point is 60 % of them). */
let totalWrites = 0;
beforeAll(async () => {
  const s = await approved();
  const exit = await worker(s.url, "reference", ["--once"], 0).exit;
  expect(exit, exit.stderr).toMatchObject({ code: 0 });
  totalWrites = Number(/^writes: (\d+)$/m.exec(exit.stderr)?.[1]);
  expect(totalWrites).toBeGreaterThanOrEqual(10);
}, 180_000);

it("a SIGKILLed worker's run is taken over before its lease expires, and finishes with one rollback", async () => {
  const s = await approved();
  const holdAt = Math.round(0.6 * totalWrites);
  const first = worker(s.url, "w1", [], holdAt);
  await until(`w1 holding at write ${holdAt}`, () => first.stderr().includes(`holding at write ${holdAt}:`), [first], START_MS);
  // w2 starts while w1 lives (its lock held): it must not take the run then.
  const second = worker(s.url, "w2", ["--once"], 0);
  const db = runtimeInternals(s.rt).storage.db as PostgresDatabase;
  const alive = async (id: string) => (await db.query("SELECT 1 FROM run_workers WHERE worker_id = $1", [id])).rowCount === 1;
  await until("w2 holding its liveness", () => alive("w2"), [second], START_MS);
  expect(await alive("w1")).toBe(true);
  const atKill = await runtimeInternals(s.rt).runs.get(s.runId);
  expect(atKill, first.stderr()).toMatchObject({ status: "RUNNING", lease: { owner: "w1" } });
  expect((await first.kill()).signal).toBe("SIGKILL");

  const exit = await second.exit;
  expect(exit, exit.stderr).toMatchObject({ code: 0 });
  expect((await s.rt.get(s.runId)).status).toBe("SUCCEEDED");
  expect(await s.rollbacks()).toBe(1);
  expect(await s.rollbackEntries()).toEqual([expect.objectContaining({ status: "done" })]);
  const events = await runtimeInternals(s.rt).runs.events(s.runId);
  const lost = events.find((e) => e.fencingToken === atKill.fencingToken && e.errorCode === "LEASE_LOST");
  // Recovered as an expired lease would be (fencing unchanged), but long before w1's lease ran out.
  expect(lost).toMatchObject({ from: "RUNNING", to: "RETRYING" });
  expect(lost!.at).toBeLessThan(atKill.lease!.expiresAt - 60_000);
  expect(events.at(-1)).toMatchObject({ to: "SUCCEEDED", actor: "w2", fencingToken: atKill.fencingToken + 1 });
  // w2 judged w1 dead and dropped its row; w2's own went when it stopped.
  expect([await alive("w1"), await alive("w2")]).toEqual([false, false]);
}, 420_000);
