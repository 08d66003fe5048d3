// Crash recovery on PostgreSQL with real processes: `agentrt worker --db postgres://…` is SIGKILLed while it executes
// an approved ops_rollback, and a second worker process finishes the run: SUCCEEDED with exactly one rollback, the
// ledger's exactly-once holding across the crash (a pending intent re-issued under its key, a recorded one replayed).
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { PostgresDatabase } from "../../src/db/postgres/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { openWorld } from "../../src/testing/index.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MESSAGE = "Find out why the payments deploy failed; if it needs a rollback, ask me first; after the rollback confirm the service recovered.";

interface Worker {
  proc: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

const started: Worker[] = [];
const opened: Runtime[] = [];
afterEach(async () => {
  for (const worker of started.splice(0)) worker.proc.kill("SIGKILL");
  for (const rt of opened.splice(0)) await rt.close();
});

/** `agentrt worker --db url …` as a child process; `latencyMs` slows every simulated call it makes. */
function startWorker(url: string, args: string[], latencyMs: number): Worker {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "worker", "--db", url, "--lease-ms", "1000", ...args], {
    cwd: ROOT,
    env: { ...process.env, OPENAI_API_KEY: "", AGENTRT_DATABASE_URL: "", AGENTRT_SIM_LATENCY_MS: String(latencyMs), AGENTRT_SIM_FAULTS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  proc.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const worker = { proc, exit: new Promise<Awaited<Worker["exit"]>>((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr }))) };
  started.push(worker);
  return worker;
}

/** Polls the database (never a fixed sleep alone) until `ready` holds; fails early if the worker exits first. */
async function until(what: string, worker: Worker, ready: () => Promise<boolean>, timeoutMs = 40_000): Promise<void> {
  let exited = false;
  void worker.exit.then(() => (exited = true));
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (exited) throw new Error(`worker exited before ${what}: ${(await worker.exit).stderr}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A fresh schema with ops_rollback approved and QUEUED for a worker (the parent ran it up to the approval). */
async function approvedRollback() {
  const { url } = schema.fresh();
  const rt = Runtime.open({ db: url, config: `${ROOT}langgraph.json` });
  opened.push(rt);
  const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
  expect(waiting.status).toBe("WAITING_APPROVAL");
  const action = waiting.pending[0]!;
  expect((await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true })).status).toBe("QUEUED");
  const { storage } = runtimeInternals(rt);
  const rollback = async () => (await storage.ledger.list(waiting.run_id)).find((entry) => entry.tool === "rollback_deployment");
  const rollbacks = async () => (await openWorld({ db: storage.db as PostgresDatabase }).snapshot()).calls.rollback_deployment ?? 0;
  return { url, rt, runId: waiting.run_id, rollback, rollbacks };
}

/** SIGKILLs the first worker, then a second one (no latency) recovers the run once the lease expired, and exits. */
async function killAndRecover(s: Awaited<ReturnType<typeof approvedRollback>>, first: Worker) {
  first.proc.kill("SIGKILL");
  expect((await first.exit).signal).toBe("SIGKILL");
  const atKill = { rollback: await s.rollback(), rollbacks: await s.rollbacks() };
  const second = startWorker(s.url, ["--once", "--worker-id", "w2"], 0);
  const exit = await second.exit;
  expect(exit, exit.stderr).toMatchObject({ code: 0 });
  const run = await s.rt.get(s.runId);
  expect(run.status).toBe("SUCCEEDED");
  expect(JSON.stringify(run.result)).toContain("Rolled back to rev-184");
  expect(await s.rollbacks()).toBe(1);
  const events = await runtimeInternals(s.rt).runs.events(s.runId);
  // The killed worker's claim ended in a lost lease, recovered by w2.
  expect(events.some((e) => e.errorCode === "LEASE_LOST")).toBe(true);
  return atKill;
}

// Each case takes about 15 s alone; the timeout leaves room for a 2-core machine busy with the other test files.
describe("a worker process killed mid-run on PostgreSQL", () => {
  it("while the rollback call is in flight: the intent is re-issued under its key and the platform rolls back once", async () => {
    const s = await approvedRollback();
    // The rollback's latency outlasts the test: it is in flight until the kill.
    const first = startWorker(s.url, ["--worker-id", "w1"], 60_000);
    await until("the rollback's intent", first, async () => (await s.rollback())?.status === "pending");
    const atKill = await killAndRecover(s, first);
    expect(atKill).toMatchObject({ rollback: { status: "pending", attempts: 1 }, rollbacks: 0 });
    expect(await s.rollback()).toMatchObject({ status: "done", attempts: 2, externalOperationId: expect.stringMatching(/^op_deploy_/) });
  }, 90_000);

  it("after the rollback was recorded: the second worker replays it from the ledger instead of calling again", async () => {
    const s = await approvedRollback();
    // Every call takes a while: the worker is still verifying (or checkpointing) when the recorded rollback is seen.
    const first = startWorker(s.url, ["--worker-id", "w1"], 2_000);
    await until("the rollback's result", first, async () => (await s.rollback())?.status === "done");
    const atKill = await killAndRecover(s, first);
    expect(atKill).toMatchObject({ rollback: { status: "done", attempts: 1 }, rollbacks: 1 });
    expect(await s.rollback()).toMatchObject({ status: "done", attempts: 1, externalOperationId: atKill.rollback!.externalOperationId });
  }, 90_000);
});
