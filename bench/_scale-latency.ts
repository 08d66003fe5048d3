// Scale, latency-bound: queued runs of the bench's latency agent (_latency-agent.ts: ~1 s model turns, 200 ms
// sleeping tools, streamed: each run's chunks go to the chunk log as for a client watching it) executed by P real
// `agentrt worker --once` processes at the same concurrency each, with what the PostgreSQL server spent on them.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";
import { Runtime } from "../src/runtime/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";
import { sampleLockWaits, serverCost, serverCounters, type LockWaits, type ServerCost } from "./_pg-server-stats.js";
import { percentile, ROOT } from "./_scale-pg.js";
import { kindsPerRun, type StatementKinds } from "./_scale-pgbench.js";

const BIN = join(ROOT, "src", "cli", "bin.ts");
const PRELOAD = join(ROOT, "bench", "_worker-preload.ts");

/** A langgraph.json in `dir` naming only the latency agent; returns its path. */
export function latencyConfig(dir: string): string {
  const path = join(dir, "langgraph.json");
  writeFileSync(path, JSON.stringify({ graphs: { latency_agent: `${join(ROOT, "bench", "_latency-agent.ts")}:graph` } }));
  return path;
}

/** One `agentrt worker` process running the latency agent, counting its round trips. */
export function latencyWorker(db: string, dir: string, id: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", PRELOAD, BIN, "worker", "--db", db, "--worker-id", id, ...args], {
    cwd: ROOT,
    env: {
      ...process.env, OPENAI_API_KEY: "", AGENTRT_CONFIG: join(dir, "langgraph.json"), BENCH_TOOL_LOG: join(dir, "tools.log"),
      BENCH_SQL_LOG: join(dir, "sql"), BENCH_WORKER_ID: id, ...env,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

/** Queues `runs` streamed runs of the latency agent; returns their ids. */
export async function queueLatencyRuns(runtime: Runtime, runs: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < runs; i += 25) {
    const batch = Array.from({ length: Math.min(25, runs - i) }, () =>
      runtime.submit({ graph: "latency_agent", message: "go", queue: true, config: { stream: { modes: ["updates", "messages"] } } }));
    ids.push(...(await Promise.all(batch)).map((view) => view.run_id));
  }
  return ids;
}

/** Round trips the worker processes of `dir` made (written by _worker-preload.ts at their exit), by statement. */
export function statementMix(dir: string): Map<string, number> {
  const mix = new Map<string, number>();
  for (const file of readdirSync(dir).filter((name) => name.startsWith("sql."))) {
    for (const [text, n] of Object.entries(JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, number>)) mix.set(text, (mix.get(text) ?? 0) + n);
  }
  return mix;
}

/** Tool calls performed more than once (same run and call id), from the tool log. */
export function repeatedToolCalls(dir: string): { calls: number; repeated: number; lines: string[][] } {
  const path = join(dir, "tools.log");
  const lines = existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => l.split(" ")) : [];
  const keys = lines.map(([run, call]) => `${run} ${call}`);
  return { calls: lines.length, repeated: keys.length - new Set(keys).size, lines };
}

/** What one latency-bound measurement found. */
export interface LatencyFigures {
  processes: number;
  concurrency: number;
  runs: number;
  runs_per_s: number;
  runs_per_s_steady: number;
  run_p50_ms: number;
  run_p99_ms: number;
  pg: ServerCost & { cpu_ms_per_run: number | null; commits_per_run: number; wal_bytes_per_run: number };
  round_trips_per_run: number;
  /** The round trips of a run by kind (what pgbench replays). */
  statement_kinds_per_run: StatementKinds;
  /** Backend-ms spent waiting on a heavyweight lock per run (sampled). */
  lock_wait_ms_per_run: number;
  lock_waits: LockWaits;
  /** Tool calls performed by a worker after another had claimed the run (two executions of one run at once). */
  double_executions: number;
  /** Runs claimed more than once (one after another: a lost lease, a storage failure handed back), and why. */
  runs_claimed_again: number;
  reclaim_reasons: Record<string, number>;
  repeated_tool_calls: number;
}

/** Runs `runs` latency-agent runs through `processes` workers of `concurrency` each on `url`; `dir` is this measurement's own. */
export async function measureLatencyWorkers(admin: pg.Client, url: string, dir: string, options: { processes: number; concurrency: number; runs: number }): Promise<LatencyFigures> {
  const { processes, concurrency, runs } = options;
  const config = latencyConfig(dir);
  const runtime = Runtime.open({ db: url, config });
  try {
    await runtime.ready();
    const ids = await queueLatencyRuns(runtime, runs);
    const before = await serverCounters(admin);
    const sampler = sampleLockWaits(admin);
    const workers = Array.from({ length: processes }, (_, i) => latencyWorker(url, dir, `lat-${processes}-${i}`, ["--once", "--concurrency", String(concurrency)]));
    const codes = await Promise.all(workers.map((w) => w.exited));
    const waits = await sampler.stop();
    const cost = await serverCost(admin, before, waits.samples);
    codes.forEach((code, i) => {
      if (code !== 0) throw new Error(`bench scale: latency worker ${i} exited ${String(code)}: ${workers[i]?.stderr() ?? ""}`);
    });
    const mix = statementMix(dir);
    const trips = [...mix.values()].reduce((sum, n) => sum + n, 0);
    const timing = await runTimes(runtime, ids);
    return {
      processes, concurrency, runs: ids.length, ...timing.rates,
      run_p50_ms: percentile(timing.latencies, 50), run_p99_ms: percentile(timing.latencies, 99),
      pg: {
        ...cost, cpu_ms_per_run: cost.cpu_ms === null ? null : Number((cost.cpu_ms / ids.length).toFixed(2)),
        commits_per_run: Number((cost.commits / ids.length).toFixed(1)), wal_bytes_per_run: Math.round(cost.wal_bytes / ids.length),
      },
      round_trips_per_run: Number((trips / ids.length).toFixed(1)),
      statement_kinds_per_run: kindsPerRun(mix, ids.length),
      lock_wait_ms_per_run: Number((waits.waiting_ms / ids.length).toFixed(1)),
      lock_waits: waits,
      double_executions: staleCalls(repeatedToolCalls(dir).lines, timing.claims),
      runs_claimed_again: timing.claimedTwice,
      reclaim_reasons: timing.reasons,
      repeated_tool_calls: repeatedToolCalls(dir).repeated,
    };
  } finally {
    await runtime.close();
  }
}

/** Claim-to-end times, rates (overall and while every worker was claiming) and runs claimed more than once. */
async function runTimes(runtime: Runtime, ids: string[]) {
  const runs = runtimeInternals(runtime).runs;
  const rows: Array<{ claimedAt: number; finishedAt: number; actor: string }> = [];
  let claimedTwice = 0;
  const reasons: Record<string, number> = {};
  const claimsByRun = new Map<string, Array<{ actor: string; at: number }>>();
  for (const id of ids) {
    const run = await runs.get(id);
    if (run.status !== "SUCCEEDED" || run.finishedAt === null) throw new Error(`bench scale: run ${id} ended ${run.status} (${run.errorCode ?? ""})`);
    const events = await runs.events(id);
    // A claim moves a run to RUNNING from QUEUED or RETRYING under a new token; a backoff's end keeps its token.
    const claims = events.filter((e, i) => e.to === "RUNNING" && (i === 0 || e.fencingToken !== events[i - 1]?.fencingToken));
    claimsByRun.set(id, claims.map((c) => ({ actor: c.actor ?? "", at: c.at })));
    if (claims.length > 1) {
      claimedTwice++;
      for (const e of events.filter((e) => e.to === "RETRYING" && e.errorCode !== null)) reasons[e.errorCode!] = (reasons[e.errorCode!] ?? 0) + 1;
    }
    const first = claims[0];
    if (first !== undefined) rows.push({ claimedAt: first.at, finishedAt: run.finishedAt, actor: first.actor ?? "" });
  }
  const firstClaim = Math.min(...rows.map((r) => r.claimedAt));
  const lastFinish = Math.max(...rows.map((r) => r.finishedAt));
  const byActor = new Map<string, number[]>();
  for (const r of rows) byActor.set(r.actor, [...(byActor.get(r.actor) ?? []), r.claimedAt]);
  // The window in which every process was claiming: after the slowest cold start, before the first ran dry.
  const from = Math.max(...[...byActor.values()].map((claims) => Math.min(...claims)));
  const to = Math.min(...[...byActor.values()].map((claims) => Math.max(...claims)));
  const inWindow = rows.filter((r) => r.finishedAt >= from && r.finishedAt <= to).length;
  const overall = rows.length / ((lastFinish - firstClaim) / 1000);
  const steady = to - from >= 2000 ? inWindow / ((to - from) / 1000) : overall;
  return {
    rates: { runs_per_s: Number(overall.toFixed(2)), runs_per_s_steady: Number(steady.toFixed(2)) },
    latencies: rows.map((r) => r.finishedAt - r.claimedAt).sort((a, b) => a - b),
    claimedTwice,
    reasons,
    claims: claimsByRun,
  };
}

/** Tool calls whose worker no longer held the run: the run's latest claim before the call was another worker's. */
function staleCalls(lines: string[][], claims: Map<string, Array<{ actor: string; at: number }>>): number {
  return lines.filter(([run = "", , worker, at]) => {
    const before = (claims.get(run) ?? []).filter((c) => c.at <= Number(at));
    return before.length > 0 && before.at(-1)?.actor !== worker;
  }).length;
}
