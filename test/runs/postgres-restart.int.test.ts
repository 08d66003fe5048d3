// PostgreSQL restarted (`pg_ctlcluster … restart`, a real one) while three `agentrt worker` processes execute a batch
// of city_weather runs and an approved ops_rollback, with an `agentrt serve` on the same cluster: every run finishes
// SUCCEEDED, the rollback happens once (the simulated platform's count, the ledger), no run succeeds twice, the
// workers reconnect by themselves and exit cleanly on SIGTERM, and the server answers again after the outage.
// One rollback only: the simulated platform has one failed deploy to roll back per schema (a second is refused).
// The cluster is the test's own (test/helpers/private-postgres.ts): the shared one on 5432 is never restarted.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { PostgresDatabase } from "../../src/db/postgres/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { closeWorlds, openWorld } from "../../src/testing/index.js";
import { usePrivatePostgres } from "../helpers/private-postgres.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MESSAGE = "Find out why the payments deploy failed; if it needs a rollback, ask me first; after the rollback confirm the service recovered.";
const WEATHER_RUNS = 8;
const WORKERS = 3;

const pgc = usePrivatePostgres("restart");
const spawned: ChildProcess[] = [];
const opened: Runtime[] = [];
afterEach(async () => {
  for (const child of spawned.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const rt of opened.splice(0)) await rt.close();
});
afterAll(closeWorlds);

interface Child {
  proc: ChildProcess;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  output(): string;
}

/** `agentrt …args` from the checkout, its output kept; `onLine` hears each stdout line. */
function agentrt(args: string[], onLine?: (line: string) => void): Child {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: "", AGENTRT_DATABASE_URL: "", AGENTRT_API_KEY: "", AGENTRT_SERVE_WORKERS: "", AGENTRT_SIM_FAULTS: "", AGENTRT_SIM_LATENCY_MS: "250" };
  const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  spawned.push(proc);
  let stdout = "";
  let stderr = "";
  if (onLine !== undefined) createInterface({ input: proc.stdout }).on("line", onLine);
  proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<Awaited<Child["exit"]>>((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { proc, exit, output: () => `${stdout}\n${stderr}` };
}

/** `agentrt serve --port 0 --db url --json`; its URL once it listens. */
async function serve(url: string): Promise<{ child: Child; api: string }> {
  let listening: (api: string) => void = () => {};
  const api = new Promise<string>((resolve) => (listening = resolve));
  const child = agentrt(["serve", "--port", "0", "--db", url, "--json"], (line) => listening((JSON.parse(line) as { url: string }).url));
  return { child, api: await Promise.race([api, child.exit.then((e) => Promise.reject(new Error(`serve exited: ${e.stderr}`)))]) };
}

// The test's own deadline, inside vitest's timeout: a wait that runs out fails with what every run went through and
// what every process said, instead of vitest's bare "Test timed out".
const DEADLINE_MS = 200_000;

/**
 * Polls until `ready` holds or `deadline` passes; a check that throws (the parent's own connection cut by the
 * restart) counts as not yet, and a check that never answers is given up at the deadline.
 */
async function until(what: string, ready: () => Promise<boolean>, deadline: number): Promise<void> {
  for (;;) {
    if (await by(what, ready(), deadline).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `promise`, or a rejection saying `what` did not happen by `deadline`. */
async function by<T>(what: string, promise: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** When the server process started: a restart changes it. */
/** LISTEN connections (agentrt's application name) on the server at `port` whose backends started after `since`. */
async function listenersAfter(port: number, since: string): Promise<number> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/agentrt`, connectionTimeoutMillis: 10_000, query_timeout: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'agentrt-listen' AND backend_start > $1::timestamptz", [since]);
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function postmasterStart(port: number): Promise<string> {
  const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/agentrt`, connectionTimeoutMillis: 10_000, query_timeout: 10_000 });
  await client.connect();
  try {
    return String((await client.query<{ t: Date }>("SELECT pg_postmaster_start_time() AS t")).rows[0]!.t.toISOString());
  } finally {
    await client.end();
  }
}

describe("PostgreSQL restarted while runs are in flight", () => {
  it("every run finishes SUCCEEDED, the rollback happens once, workers and server carry on by themselves", async () => {
    const deadline = Date.now() + DEADLINE_MS;
    const { cluster } = pgc;
    const url = cluster.url("restart");
    const rt = Runtime.open({ db: url, config: `${ROOT}langgraph.json` });
    opened.push(rt);
    const { runs, storage } = runtimeInternals(rt);

    // The children start while the parent prepares the runs. The server is on a schema of its own: its in-process
    // worker finds nothing to take from the worker processes.
    const workers = Array.from({ length: WORKERS }, (_, i) => agentrt(["worker", "--db", url, "--worker-id", `w${i + 1}`, "--concurrency", "4", "--lease-ms", "6000"]));
    const serving = serve(cluster.url("restart_api"));
    // Awaited below; until then a failure to start must not be an unhandled rejection.
    serving.catch(() => undefined);

    // An approved rollback, queued for a worker (the parent ran it up to its approval), then the weather runs.
    const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    const action = waiting.pending[0]!;
    expect((await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true })).status).toBe("QUEUED");
    const rollbackId = waiting.run_id;
    const weatherIds: string[] = [];
    for (let i = 0; i < WEATHER_RUNS; i++) {
      weatherIds.push((await rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", queue: true })).run_id);
    }
    const ids = [rollbackId, ...weatherIds];
    const { child: server, api } = await by("the server to listen", serving, deadline);
    // What each run went through and what every process said, for a failure's message; each part bounded, since the
    // parent's own connection may be what is stuck.
    const story = async () => {
      const events = await by("the runs' events", Promise.all(ids.map(async (id) => `${id} ${JSON.stringify((await runs.events(id)).map((e) => [e.to, e.actor, e.errorCode]))}`)), Date.now() + 10_000)
        .catch((error: unknown) => [String(error)]);
      return `${events.join("\n")}\n${[...workers, server].map((w) => w.output()).join("\n---\n")}`;
    };
    const told = async (error: unknown): Promise<never> => {
      throw new Error(`${String(error)}\n${await story()}`);
    };
    // A request the server accepted and never answered must not hang the test.
    const thread = async () => {
      const answer = await fetch(`${api}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(10_000) });
      return answer.status;
    };
    expect(await thread()).toBe(200);

    // Restart once the rollback and a weather run are both under way and most of the batch is still to do.
    const status = async (id: string) => (await runs.get(id)).status;
    await until("the rollback and a weather run in flight", async () => {
      const now = await Promise.all(ids.map(status));
      return now[0] === "RUNNING" && now.slice(1).includes("RUNNING");
    }, deadline).catch(told);
    const before = await Promise.all(ids.map(status));
    const startedBefore = await postmasterStart(cluster.port);
    await by("the restart", cluster.restart(), deadline).catch(told);
    expect(await postmasterStart(cluster.port)).not.toBe(startedBefore);
    expect(before.filter((s) => s === "SUCCEEDED").length).toBeLessThan(ids.length / 2);

    // The server may answer 503 while it reconnects, never anything else, and answers again.
    const answers = new Set<number>();
    await until("the server answering again", async () => {
      const code = await thread();
      answers.add(code);
      return code === 200;
    }, deadline).catch(told);
    expect([...answers].filter((code) => code !== 200 && code !== 503)).toEqual([]);

    await until("every run finished", async () => (await Promise.all(ids.map(status))).every((s) => s === "SUCCEEDED" || s === "FAILED" || s === "CANCELED"), deadline)
      .catch(told);
    const finals = await Promise.all(ids.map(async (id) => runs.get(id)));
    expect(finals.filter((r) => r.status !== "SUCCEEDED").map((r) => [r.runId, r.status, r.errorCode, r.errorMessage]), await story()).toEqual([]);
    // Each weather run answered from the weather it was given: no tool refused after the outage (an open circuit).
    for (const runId of weatherIds) expect(JSON.stringify((await rt.get(runId)).result), await story()).toContain("Beijing: sunny");

    // The rollback once: the simulated platform's own count, and one recorded call in the run's ledger.
    expect((await openWorld({ db: storage.db as PostgresDatabase }).snapshot()).calls.rollback_deployment).toBe(1);
    const rollbacks = (await storage.ledger.list(rollbackId)).filter((entry) => entry.tool === "rollback_deployment");
    expect(rollbacks).toHaveLength(1);
    expect(rollbacks[0]).toMatchObject({ status: "done", externalOperationId: expect.stringMatching(/^op_deploy_/) });
    expect(JSON.stringify((await rt.get(rollbackId)).result)).toContain("Rolled back to rev-184");
    // No run succeeded twice.
    for (const runId of ids) {
      expect((await runs.events(runId)).filter((e) => e.to === "SUCCEEDED"), runId).toHaveLength(1);
    }

    // The workers carried on by themselves: each listens again, on a backend of the restarted server. (Whether one
    // of their statements was cut off depends on the instant: a worker between statements reconnects silently.)
    expect(await listenersAfter(cluster.port, startedBefore)).toBeGreaterThanOrEqual(WORKERS);
    // Still alive after the outage, and each stops cleanly.
    for (const worker of workers) expect(worker.proc.exitCode, worker.output()).toBeNull();
    expect(server.proc.exitCode).toBeNull();
    for (const child of [...workers, server]) child.proc.kill("SIGTERM");
    for (const [i, child] of [...workers, server].entries()) {
      const exit = await by(`${i < WORKERS ? `worker w${i + 1}` : "the server"} to exit on SIGTERM`, child.exit, deadline).catch(told);
      expect(exit, exit.stderr).toMatchObject({ code: 0 });
    }
  }, DEADLINE_MS + 40_000);
});
