// Issue #18 item 2, "no polling", for workers on PostgreSQL: a worker whose idle poll would not come for ten minutes
// claims a run queued, or approved, by another process as soon as that commits (its NOTIFY); after its LISTEN
// connection is killed, a run queued while it was down is still claimed (the gap); and a cancel from another
// process stops the run a worker process holds before its in-flight side effect happens.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { notificationChannel } from "../../src/db/postgres/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { closeWorlds, openWorld } from "../../src/testing/index.js";
import { agentrtProcess } from "../helpers/cli-process.js";
import { useTestSchema, withClient } from "../helpers/postgres.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "langgraph.json");
const BIN = join(ROOT, "src", "cli", "bin.ts");
const ROLLBACK = "Why did the payments deploy fail? Roll back if needed.";
/** Far beyond every wait below: a run these tests see claimed was claimed on word, never by the idle poll. */
const SAFETY_POLL_MS = 600_000;

const schema = useTestSchema(import.meta.url);
afterAll(closeWorlds);

interface RunJson {
  run_id: string;
  status: string;
  pending: { action_id: string; args_hash: string; tool: string }[];
}

/** `agentrt …args --db url --json` in its own process: its JSON answer. */
async function cli(url: string, ...args: string[]): Promise<RunJson> {
  const result = await agentrtProcess([...args, "--db", url, "--json"], { env: { OPENAI_API_KEY: "", AGENTRT_DATABASE_URL: "", AGENTRT_CONFIG: CONFIG } });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as RunJson;
}

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Backends of the LISTEN connections on `schemaName`'s channels (a worker listens to "queued" while it has room,
 * and to its runs' own): application_name agentrt-listen, and a last statement naming one of them (they all end in
 * a hash of the schema), so other schemas' listeners on the shared server are never touched.
 */
function listeners(schemaName: string): Promise<number[]> {
  const channel = notificationChannel(schemaName, "runs").slice("agentrt_runs".length);
  return withClient(async (client) => (await client.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'agentrt-listen' AND query LIKE '%' || $1 || '%'", [channel],
  )).rows.map((row) => row.pid));
}

/** An in-test worker on `url` that polls only every ten minutes, and the runtime under it. */
async function idleWorker(url: string, schemaName: string) {
  const rt = Runtime.open({ db: url, config: CONFIG });
  await rt.ready();
  const worker = rt.worker({ safetyPollMs: SAFETY_POLL_MS });
  const done = worker.run();
  // Listening (it listens before its first look for work, which then finds none and waits ten minutes).
  await until("the worker's LISTEN", async () => (await listeners(schemaName)).length > 0);
  return {
    rt,
    status: async (runId: string) => (await rt.get(runId)).status,
    // Bounded: a worker that cannot stop (a run stuck in flight) must not hide why the test failed behind its timeout.
    close: async () => {
      const closing = (async () => {
        await worker.stop();
        await done;
        await rt.close();
      })();
      const hung = await Promise.race([closing.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 20_000).unref())]);
      if (hung) console.error(`idle worker did not stop within 20 s; runs: ${JSON.stringify(await rt.list({ limit: 10 }).catch(String))}`);
    },
  };
}

describe("workers woken by NOTIFY on PostgreSQL", () => {
  it("claim a run queued by another process, and its approval queued by another, although their idle poll is ten minutes away", async () => {
    const { url, name } = schema.fresh("q");
    const worker = await idleWorker(url, name);
    try {
      const rollback = await cli(url, "run", "ops_rollback", "--message", ROLLBACK, "--queue");
      expect(rollback.status).toBe("QUEUED");
      await until("the rollback run to wait for approval", async () => (await worker.status(rollback.run_id)) === "WAITING_APPROVAL");
      const action = (await worker.rt.get(rollback.run_id)).pending[0]!;
      const approved = await cli(url, "approve", rollback.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--queue");
      expect(approved.status).toBe("QUEUED");
      await until("the approved run to finish", async () => (await worker.status(rollback.run_id)) === "SUCCEEDED");
      expect((await openWorld({ path: url }).snapshot()).calls.rollback_deployment).toBe(1);
    } finally {
      await worker.close();
    }
  }, 200_000);

  it("claims a run queued while its LISTEN connection was down: the reconnect reports a gap and the worker looks", async () => {
    const { url, name } = schema.fresh("g");
    const worker = await idleWorker(url, name);
    const other = Runtime.open({ db: url, config: CONFIG });
    try {
      const killed = await listeners(name);
      expect(killed).toHaveLength(1);
      // Warm (graph loaded, pool connected), so the submit below commits within milliseconds.
      const first = await other.submit({ graph: "city_weather", message: "Weather for Beijing", queue: true });
      await until("a run queued before the kill to finish", async () => (await worker.status(first.run_id)) === "SUCCEEDED");
      await withClient((client) => client.query("SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", [killed]));
      // Queued at once: the killed backend never sends its NOTIFY, and the worker reconnects only after a pause
      // (at least 50 ms), so no listener of this schema hears it.
      const run = await other.submit({ graph: "city_weather", message: "Weather for Beijing", queue: true });
      await until("the run queued during the gap to finish", async () => (await worker.status(run.run_id)) === "SUCCEEDED");
      // It reconnected on a new backend.
      expect((await listeners(name)).filter((pid) => !killed.includes(pid))).toHaveLength(1);
    } finally {
      await other.close();
      await worker.close();
    }
  }, 200_000);

  it("a cancel from another process stops the run a worker process holds before its in-flight rollback happens", async () => {
    const { url } = schema.fresh("c");
    const rt = Runtime.open({ db: url, config: CONFIG });
    await rt.ready();
    // Each simulated call takes 1 s, abortably; the lease is long, so its heartbeat (a third of it) never comes
    // during the rollback: only the word of the cancel can stop it in time.
    const proc = spawn(process.execPath, ["--import", "tsx", BIN, "worker", "--lease-ms", "300000"], {
      cwd: ROOT,
      env: { ...process.env, AGENTRT_DATABASE_URL: url, AGENTRT_CONFIG: CONFIG, OPENAI_API_KEY: "", AGENTRT_SIM_LATENCY_MS: "1000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    proc.stderr.resume();
    const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
    try {
      const { ledger } = runtimeInternals(rt).storage;
      const queued = await rt.submit({ graph: "ops_rollback", message: ROLLBACK, queue: true });
      await until("the run to wait for approval", async () => (await rt.get(queued.run_id)).status === "WAITING_APPROVAL");
      const action = (await rt.get(queued.run_id)).pending[0]!;
      await rt.approve(queued.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true });
      const inFlight = async () => (await ledger.list(queued.run_id, { status: "pending" })).filter((e) => e.tool === "rollback_deployment");
      await until("the rollback to be in flight in the worker process", async () => (await inFlight()).length === 1);
      await rt.cancel(queued.run_id, { by: "ops", reason: "stop" });
      // The worker process reports what became of the call (aborted before it was performed).
      await until("the worker to report the rollback", async () => (await inFlight()).length === 0);
      expect((await rt.get(queued.run_id)).status).toBe("CANCELED");
      expect((await openWorld({ path: url }).snapshot()).calls.rollback_deployment ?? 0).toBe(0);
      const [entry] = (await ledger.list(queued.run_id)).filter((e) => e.tool === "rollback_deployment");
      expect(entry?.status).not.toBe("done");
    } finally {
      proc.kill("SIGKILL");
      await exited;
      await rt.close();
    }
  }, 200_000);
});
