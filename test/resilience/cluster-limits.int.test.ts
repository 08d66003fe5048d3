// Limits that hold across processes: four real `agentrt worker` processes on one PostgreSQL schema execute runs whose
// tool declares 5 calls/s (burst 1) and 2 in flight. The tool stamps each call's start and end with the server's
// clock; from those stamps alone, no 1-second window holds more than 5 + burst starts and never more than 2 calls
// overlap. And a breaker opened by failures in one process (this one) refuses the tool's calls in a worker process.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { useTestSchema, withClient } from "../helpers/postgres.js";
import { CALLS_PER_RUN, LIMITS } from "./fixtures/limited-graphs.js";
import { maxInWindow, maxOverlap } from "./time-windows.js";

const schema = useTestSchema(import.meta.url);
const root = fileURLToPath(new URL("../..", import.meta.url));
const graphs = fileURLToPath(new URL("./fixtures/limited-graphs.ts", import.meta.url));
const RUNS = 12;
const WORKERS = 4;

/** `agentrt worker --once` from the checkout's sources; resolves with its exit code and output. */
function worker(config: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "worker", "--once", "--concurrency", "3"], {
      cwd: root,
      env: { ...process.env, AGENTRT_DATABASE_URL: schema.url, AGENTRT_CONFIG: config },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("tool limits across worker processes on one PostgreSQL database", () => {
  let config: string;
  let runtime: Runtime;

  beforeAll(async () => {
    delete process.env.OPENAI_API_KEY;
    const dir = mkdtempSync(join(tmpdir(), "agentrt-cluster-limits-"));
    config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { limited: `${graphs}:limited`, flaky: `${graphs}:flaky` } }));
    runtime = Runtime.open({ db: schema.url, config });
    await runtime.ready();
    await withClient(async (client) => {
      await client.query(`CREATE TABLE ${schema.name}.limited_calls (id SERIAL PRIMARY KEY, pid INTEGER NOT NULL, started_at FLOAT8 NOT NULL, ended_at FLOAT8)`);
      await client.query(`CREATE TABLE ${schema.name}.flaky_calls (id SERIAL PRIMARY KEY, pid INTEGER NOT NULL)`);
    });
  });

  afterAll(async () => {
    await runtime?.close();
  });

  it("a breaker opened here refuses the tool in a worker; 4 workers keep a 5/s, 2-in-flight tool within its limits", async () => {
    // This process opens flaky_call's breaker (threshold 2): its run's two calls both fail.
    const opened = await runtime.submit({ graph: "flaky", message: "go" });
    expect(opened.status).toBe("SUCCEEDED");
    expect(opened.result).toBe("TOOL_FAILED,TOOL_FAILED");

    const refused = await runtime.submit({ graph: "flaky", message: "go", queue: true });
    const limited = await Promise.all(Array.from({ length: RUNS }, () => runtime.submit({ graph: "limited", message: "go", queue: true })));
    const exits = await Promise.all(Array.from({ length: WORKERS }, () => worker(config)));
    for (const exit of exits) expect(exit.code, exit.out).toBe(0);

    // The worker that ran the second flaky run was refused by the circuit this process opened: no call was made.
    const second = await runtime.get(refused.run_id);
    expect(second.status).toBe("SUCCEEDED");
    expect(second.result).toBe("CIRCUIT_OPEN,CIRCUIT_OPEN");
    const flakyCalls = await withClient((c) => c.query<{ pid: number }>(`SELECT pid FROM ${schema.name}.flaky_calls`));
    expect(flakyCalls.rows.map((r) => r.pid)).toEqual([process.pid, process.pid]);

    for (const run of limited) expect((await runtime.get(run.run_id)).status).toBe("SUCCEEDED");
    const { rows: calls } = await withClient((c) =>
      c.query<{ pid: number; started_at: number; ended_at: number }>(`SELECT pid, started_at, ended_at FROM ${schema.name}.limited_calls ORDER BY started_at`));
    expect(calls).toHaveLength(RUNS * CALLS_PER_RUN);
    expect(calls.every((c) => c.ended_at !== null)).toBe(true);
    // Several worker processes made the calls (not one that took every run, nor this one).
    const pids = new Set(calls.map((c) => c.pid));
    expect(pids.size).toBeGreaterThanOrEqual(2);
    expect(pids.has(process.pid)).toBe(false);
    // A bucket of 5/s and burst 1 grants at most 5 calls in any half-open second, 5 + burst in a closed one (by the
    // server's clock). The tool stamps its start a moment after the grant; the allowance of 5 + burst leaves one call
    // (200 ms) of room for that moment varying between calls.
    const starts = calls.map((c) => c.started_at);
    expect(maxInWindow(starts, 1000)).toBeLessThanOrEqual(LIMITS.rate.ratePerSecond + LIMITS.rate.burst);
    // Not vacuous: the 36 calls wanted to go at once; the bucket spread them over (36 - burst) / 5 s, less one call.
    expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(((calls.length - LIMITS.rate.burst - 1) / LIMITS.rate.ratePerSecond) * 1000);
    const overlap = maxOverlap(calls);
    expect(overlap).toBeLessThanOrEqual(LIMITS.concurrency);
    expect(overlap).toBe(LIMITS.concurrency);
    // Starting four tsx processes on a shared 2-core machine takes most of this (the calls themselves about 8 s).
  }, 180_000);
});
