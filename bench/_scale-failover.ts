// Scale, failover: a latency-agent worker (60 s lease, its model slowed to 20 s a turn so its runs are mid-flight
// whatever the machine's speed) executes runs; a second worker, idle, has come up; the first is SIGKILLed. How long its runs waited before the other claimed them again (worker liveness: at its next look, not
// at the lease's end), whether the dead one's work went on after the takeover (a double execution), and which tool
// calls ran twice (calls in flight at the kill, re-run because their results were never checkpointed: read-only
// tools are not in the ledger).
import type pg from "pg";
import type { PostgresDatabase } from "../src/db/postgres/index.js";
import { Runtime } from "../src/runtime/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";
import { latencyConfig, latencyWorker, queueLatencyRuns, repeatedToolCalls } from "./_scale-latency.js";

/** What the failover measurement found. */
export interface FailoverFigures {
  lease_ms: number;
  runs_taken_over: number;
  /** From the kill to the last of the dead worker's runs claimed again, seconds. */
  failover_s: number;
  failover_p50_s: number;
  /** Tool calls the killed worker performed after the first of its runs was claimed elsewhere. */
  double_executions: number;
  repeated_tool_calls: number;
}

const LEASE_MS = 60_000;

async function until(what: string, ready: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`bench scale: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Runs the failover measurement on `url`'s fresh schema with `concurrency` runs per worker. */
export async function measureFailover(_admin: pg.Client, url: string, dir: string, concurrency: number): Promise<FailoverFigures> {
  const runtime = Runtime.open({ db: url, config: latencyConfig(dir) });
  const lease = ["--lease-ms", String(LEASE_MS)];
  const victim = latencyWorker(url, dir, "victim", [...lease, "--concurrency", String(concurrency)], { BENCH_MODEL_MS: "20000" });
  let survivor: ReturnType<typeof latencyWorker> | undefined;
  try {
    await runtime.ready();
    // The survivor has room for all of them: the measure is the takeover, not a queue.
    const ids = await queueLatencyRuns(runtime, concurrency);
    const runs = runtimeInternals(runtime).runs;
    const held = async (owner: string) => (await runs.list({ status: "RUNNING", limit: 10_000 })).filter((r) => r.lease?.owner === owner);
    await until("the victim's claims", async () => (await held("victim")).length >= concurrency);
    survivor = latencyWorker(url, dir, "survivor", ["--once", ...lease, "--concurrency", String(concurrency)]);
    const db = runtimeInternals(runtime).storage.db as PostgresDatabase;
    await until("the survivor's start", async () => (await db.query("SELECT 1 FROM run_workers WHERE worker_id = 'survivor'")).rowCount === 1);
    const victims = (await held("victim")).map((r) => r.runId);
    victim.child.kill("SIGKILL");
    const killedAt = Date.now();
    await victim.exited;
    const code = await survivor.exited;
    if (code !== 0) throw new Error(`bench scale: failover survivor exited ${String(code)}: ${survivor.stderr()}`);
    const reclaimed: number[] = [];
    for (const id of victims) {
      const claim = (await runs.events(id)).find((e) => e.to === "RUNNING" && e.actor === "survivor");
      if (claim === undefined) throw new Error(`bench scale: run ${id} was not taken over`);
      reclaimed.push((claim.at - killedAt) / 1000);
    }
    for (const id of ids) {
      const run = await runs.get(id);
      if (run.status !== "SUCCEEDED") throw new Error(`bench scale: failover run ${id} ended ${run.status}`);
    }
    reclaimed.sort((a, b) => a - b);
    const tools = repeatedToolCalls(dir);
    const firstTakeover = killedAt + (reclaimed[0] ?? 0) * 1000;
    return {
      lease_ms: LEASE_MS,
      runs_taken_over: victims.length,
      failover_s: Number((reclaimed.at(-1) ?? 0).toFixed(2)),
      failover_p50_s: Number((reclaimed[Math.floor(reclaimed.length / 2)] ?? 0).toFixed(2)),
      double_executions: tools.lines.filter(([, , worker, at]) => worker === "victim" && Number(at) >= firstTakeover).length,
      repeated_tool_calls: tools.repeated,
    };
  } finally {
    victim.child.kill("SIGKILL");
    survivor?.child.kill("SIGKILL");
    await runtime.close();
  }
}
