// Bar of issue 4: two `agentrt worker` processes on one SQLite file execute 200 queued city_weather runs, each exactly once.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isTerminal } from "../../src/runs/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { openWorld } from "../../src/testing/index.js";
import { tempDbPath } from "./helpers.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "langgraph.json");
const BIN = join(ROOT, "src", "cli", "bin.ts");
const RUNS = 200;

interface WorkerProcess {
  proc: ChildProcess;
  started: Promise<void>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function startWorker(db: string, id: string): WorkerProcess {
  const proc = spawn(process.execPath, ["--import", "tsx", BIN, "worker", "--db", db, "--worker-id", id, "--concurrency", "4"], {
    cwd: ROOT,
    env: { ...process.env, AGENTRT_CONFIG: CONFIG, AGENTRT_SIM_LATENCY_MS: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  proc.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.includes(`worker ${id}: concurrency`)) markStarted();
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.on("exit", (code) => {
      markStarted();
      resolve({ code, stdout, stderr });
    }),
  );
  return { proc, started, exit };
}

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("two worker processes, one file", () => {
  it(`execute ${RUNS} queued city_weather runs: each SUCCEEDED exactly once, no tool call twice, both workers busy`, async () => {
    const db = tempDbPath();
    const rt = Runtime.open({ db, config: CONFIG });
    const workers = [startWorker(db, "w1"), startWorker(db, "w2")];
    try {
      // Both poll before the first run is queued, so neither can drain the queue alone before the other starts.
      await Promise.all(workers.map((w) => w.started));
      const ids: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        ids.push((await rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", queue: true })).run_id);
      }
      await until("every run finished", async () => (await runtimeInternals(rt).runs.list({ status: "QUEUED", limit: 1 })).length === 0 && (await Promise.all(ids.map((id) => runtimeInternals(rt).runs.get(id)))).every((run) => isTerminal(run.status)));
    } finally {
      for (const w of workers) w.proc.kill("SIGTERM");
    }
    const exits = await Promise.all(workers.map((w) => w.exit));
    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0 });

    const runs = await runtimeInternals(rt).runs.list({ limit: 1000 });
    expect(runs).toHaveLength(RUNS);
    expect(runs.filter((r) => r.status !== "SUCCEEDED").map((r) => [r.runId, r.status, r.errorCode])).toEqual([]);
    // Claimed once each (one RUNNING event, one attempt), and by both workers between them.
    const claimers = await Promise.all(runs.map(async (r) => {
      const claims = (await runtimeInternals(rt).runs.events(r.runId)).filter((e) => e.to === "RUNNING");
      expect(claims, r.runId).toHaveLength(1);
      expect(r.attempts).toBe(1);
      return claims[0]!.actor;
    }));
    const perWorker = { w1: claimers.filter((c) => c === "w1").length, w2: claimers.filter((c) => c === "w2").length };
    expect(perWorker.w1 + perWorker.w2).toBe(RUNS);
    expect(perWorker.w1).toBeGreaterThan(0);
    expect(perWorker.w2).toBeGreaterThan(0);
    // What each worker says it claimed matches the event log.
    for (const [i, id] of (["w1", "w2"] as const).entries()) {
      expect(exits[i]!.stdout).toContain(`worker ${id}: claimed ${perWorker[id]},`);
    }
    // No tool call ran twice: one finished tool span per tool call id, three per run; the weather system served 3 × RUNS.
    for (const run of runs) {
      const toolSpans = (await rt.trace.spans(run.runId)).filter((s) => s.kind === "tool_call");
      const ids = toolSpans.map((s) => s.toolCallId);
      expect(new Set(ids).size, run.runId).toBe(ids.length);
      expect(ids).toHaveLength(3);
    }
    expect((await openWorld({ db: runtimeInternals(rt).db }).snapshot()).calls.get_weather).toBe(3 * RUNS);
    await rt.close();
  }, 120_000);
});
