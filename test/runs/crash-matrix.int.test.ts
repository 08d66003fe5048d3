import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { openWorld } from "../../src/testing/index.js";
import { ledgerFor } from "../../src/ledger/executor.js";
import { tempDbPath } from "./helpers.js";
import { runtimeSqlite } from "../../src/runtime/internals.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const CONFIG = join(ROOT, "langgraph.json");
const WORKER = join(HERE, "fixtures", "crash-worker.ts");
const MESSAGE = "Find out why the payments deploy failed; if it needs a rollback, ask me first; after the rollback confirm the service recovered.";
/** ops_rollback takes five model turns: get_deployment, query_logs, rollback, verify, answer. */
const TURNS = 5;

interface Worker { proc: ChildProcess; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> }

function startWorker(db: string, id: string, hold: string, extra: string[] = []): Worker {
  const proc = spawn(process.execPath, ["--import", "tsx", WORKER, "--db", db, "--worker-id", id, "--lease-ms", "500", ...extra], {
    cwd: ROOT,
    env: { ...process.env, AGENTRT_DB: db, AGENTRT_CONFIG: CONFIG, AGENTRT_SIM_LATENCY_MS: "400", CRASH_HOLD: hold },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { proc, exit: new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal, stderr }))) };
}

/** Polls state in the database (never a fixed sleep alone) until `ready` holds. */
async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 150_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Serialises the parent's own graph work: runtimes in one process share the
 * registry's compiled graph and each sets its checkpointer on it.
 */
let parentTurn: Promise<unknown> = Promise.resolve();
function inParent<T>(fn: () => Promise<T>): Promise<T> {
  const next = parentTurn.then(fn, fn);
  parentTurn = next.catch(() => undefined);
  return next;
}

async function kill(worker: Worker): Promise<void> {
  worker.proc.kill("SIGKILL");
  expect((await worker.exit).signal).toBe("SIGKILL");
}

function open() {
  const db = tempDbPath();
  const rt = Runtime.open({ db, config: CONFIG });
  runtimeSqlite(rt).exec("CREATE TABLE IF NOT EXISTS crash_probe (id INTEGER PRIMARY KEY, pid INTEGER, kind TEXT)");
  const probes = (kind: string) => (runtimeSqlite(rt).prepare("SELECT count(*) AS n FROM crash_probe WHERE kind = ?").get(kind) as { n: number }).n;
  const world = () => openWorld({ db: runtimeSqlite(rt) }).snapshot();
  const rollback = async () => (await ledgerFor(runtimeSqlite(rt)).list((await rt.list())[0]?.run_id ?? "")).find((e) => e.tool === "rollback_deployment");
  return { db, rt, probes, world, rollback };
}

async function approveQueued(rt: Runtime, runId: string): Promise<void> {
  const action = (await rt.get(runId)).pending[0];
  if (action === undefined) throw new Error(`run ${runId} has no pending action`);
  const view = await inParent(() => rt.approve(runId, { actionId: action.action_id, argsHash: action.args_hash, by: "alice", queue: true }));
  expect(view.status).toBe("QUEUED");
}

/** Parent runs turns 1–3 here (no latency), approves for a worker, a held worker is killed, a second one finishes. */
async function killAfterApproval(hold: string, moment: (s: ReturnType<typeof open>) => boolean) {
  const s = open();
  const waiting = await inParent(() => s.rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" }));
  expect(waiting.status).toBe("WAITING_APPROVAL");
  await approveQueued(s.rt, waiting.run_id);
  const first = startWorker(s.db, "w1", hold);
  await until(`${hold} moment`, () => moment(s)).catch(async (error: unknown) => {
    first.proc.kill("SIGKILL");
    throw new Error(`${String(error)}; run ${JSON.stringify((await s.rt.get(waiting.run_id)).status)}; worker said: ${(await first.exit).stderr}`);
  });
  await kill(first);
  const atKill = { world: await s.world(), rollback: await s.rollback() };
  const second = startWorker(s.db, "w2", "", ["--once"]);
  expect(await second.exit).toMatchObject({ code: 0 });
  return { ...s, runId: waiting.run_id, atKill, parentTurns: 3 };
}

async function expectFinishedOnce(s: ReturnType<typeof open> & { runId: string; parentTurns: number }) {
  const run = await s.rt.get(s.runId);
  expect(run.status).toBe("SUCCEEDED");
  expect(JSON.stringify(run.result)).toContain("Rolled back to rev-184");
  expect((await s.world()).calls.rollback_deployment).toBe(1);
  expect(await s.rollback()).toMatchObject({ status: "done", externalOperationId: expect.any(String) });
  // A turn whose output was checkpointed is never asked again: exactly one finished call per turn.
  expect(s.probes("model_end") + s.parentTurns).toBe(TURNS);
  await s.rt.close();
}

describe.concurrent("crash matrix: ops_rollback, SIGKILL the worker, a second worker finishes", () => {
  it("during query_logs (before the approval)", async () => {
    const s = open();
    const queued = await s.rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice", queue: true });
    const first = startWorker(s.db, "w1", "");
    await until("query_logs in flight", () => s.probes("sim_start:query_logs") > 0);
    await kill(first);
    const second = startWorker(s.db, "w2", "");
    await until("approval wait", async () => (await s.rt.get(queued.run_id)).status === "WAITING_APPROVAL");
    await approveQueued(s.rt, queued.run_id);
    await until("success", async () => (await s.rt.get(queued.run_id)).status === "SUCCEEDED");
    second.proc.kill("SIGTERM");
    await second.exit;
    expect((await s.world()).calls.get_deployment).toBe(1);
    await expectFinishedOnce({ ...s, runId: queued.run_id, parentTurns: 0 });
  });

  it("during a model turn (the one after the rollback)", async () => {
    const s = await killAfterApproval("model", (x) => x.probes("model_start") > 0);
    expect(s.atKill.world.calls.rollback_deployment).toBe(1);
    expect(s.probes("model_start")).toBe(3); // turn 4 was cut and asked again, turn 5 once
    await expectFinishedOnce(s);
  });

  it("after the platform rolled back, before the ledger recorded the result", async () => {
    const s = await killAfterApproval("complete", (x) => x.probes("hold_complete") > 0);
    expect(s.atKill.world.calls.rollback_deployment).toBe(1);
    expect(s.atKill.rollback?.status).toBe("pending");
    // Re-issued with the same key: the platform deduped it instead of rolling back again.
    expect((await s.rollback())?.attempts).toBe(2);
    await expectFinishedOnce(s);
  });

  it("during the checkpoint write after the result was recorded", async () => {
    const s = await killAfterApproval("checkpoint", (x) => x.probes("hold_checkpoint") > 0);
    expect(s.atKill.rollback?.status).toBe("done");
    // Replayed from the ledger: the platform was not called again.
    expect(s.probes("sim_start:rollback_deployment")).toBe(1);
    await expectFinishedOnce(s);
  });
}, 300_000);
