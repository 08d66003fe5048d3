/**
 * Runs bench (issues 4 and 21): (a) CPU and wall time of agentrt's durable city_weather run (run record, lease,
 * fenced per-branch checkpoints, ledger, trace) against LangGraph's createReactAgent with the official SqliteSaver —
 * the headline baseline is "v2" (one checkpointed task per tool call) with `durability: "sync"`, the same
 * guarantees agentrt keeps — and against layers of agentrt's own path (bench/_runs-overhead.ts); (b) 1,000 queued
 * runs with 50 ms simulated tool latency through one in-process worker at concurrency 200, then through one
 * `agentrt worker` process per core (at least 2; started cold, unlike the warm in-process worker).
 * Last line: `cpu_over_langgraph_sync` (CPU per run over v2 + sync, median of rounds, `_rounds` their spread),
 * `cpu_over_langgraph_v1_async` (over LangGraph's defaults), `runs_per_s`, `p99_ms`, and the older wall ratios:
 * `overhead_vs_langgraph` (a tool returning a constant), `_same_tool`, `_fanout` (v2, async).
 * Env: BENCH_RUNS (runs per side and round, 300), BENCH_ROUNDS (3), BENCH_BLOCKS (alternating blocks per round, 10),
 * BENCH_QUEUED (1000), BENCH_SKIP_SCALE=1 (overhead only).
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Runtime } from "../src/runtime/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";
import { measureRound, openSides, type RoundFigures } from "./_runs-overhead.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = join(ROOT, "langgraph.json");
const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
const SEQUENTIAL = Number(process.env.BENCH_RUNS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 10);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 1000);

const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), "agentrt-bench-runs-")), name);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Process CPU ms used so far (user + system): steadier than wall time on a machine shared with other work. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Scale over processes: the same QUEUED runs executed by `processes` `agentrt worker --once` processes
 * sharing the file (concurrency 200 in all), as a deployment uses more than one core.
 */
async function scaleProcesses(processes: number): Promise<{ runsPerS: number; p50: number; p99: number; fromSubmitP99: number }> {
  const file = tempDb("scale-processes.db");
  const runtime = Runtime.open({ db: file, config: CONFIG });
  try {
    const ids: string[] = [];
    for (let i = 0; i < QUEUED; i++) ids.push((await runtime.submit({ graph: "city_weather", message: MESSAGE, queue: true })).run_id);
    const start = Date.now();
    const bin = join(ROOT, "src", "cli", "bin.ts");
    const env = { ...process.env, AGENTRT_SIM_LATENCY_MS: "50", AGENTRT_CONFIG: CONFIG };
    const children = Array.from({ length: processes }, (_, i) => spawn(process.execPath, [
      "--import", "tsx", bin, "worker", "--once", "--db", file, "--worker-id", `bench-${i}`, "--concurrency", String(Math.ceil(200 / processes)),
    ], { env, stdio: ["ignore", "ignore", "inherit"] }));
    await Promise.all(children.map((child) => new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`))));
    })));
    const runs = await Promise.all(ids.map((id) => runtimeInternals(runtime).runs.get(id)));
    const failed = runs.filter((r) => r.status !== "SUCCEEDED").length;
    if (failed > 0) throw new Error(`${failed} runs did not succeed with ${processes} worker processes`);
    const claimedAt = await Promise.all(runs.map(async (r) => (await runtimeInternals(runtime).runs.events(r.runId)).find((e) => e.to === "RUNNING")?.at ?? start));
    const latencies = runs.map((r, i) => (r.finishedAt ?? 0) - (claimedAt[i] ?? start)).sort((a, b) => a - b);
    const fromSubmit = runs.map((r) => (r.finishedAt ?? 0) - start).sort((a, b) => a - b);
    // From the first claim to the last finish: the workers' start-up (module loading) is not throughput.
    const seconds = (Math.max(...runs.map((r) => r.finishedAt ?? 0)) - Math.min(...claimedAt)) / 1000;
    return { runsPerS: QUEUED / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), fromSubmitP99: percentile(fromSubmit, 99) };
  } finally {
    await runtime.close();
  }
}

/** Scale: queue QUEUED runs, one worker at concurrency 200, 50 ms per tool call. */
async function scale(): Promise<{ runsPerS: number; p50: number; p99: number; elu: number; inFlight: number; waitP50: number; waitP99: number; cpuMsPerRun: number }> {
  process.env.AGENTRT_SIM_LATENCY_MS = "50";
  const runtime = Runtime.open({ db: tempDb("scale.db"), config: CONFIG });
  try {
    await runtime.registry.load("city_weather");
    const ids: string[] = [];
    for (let i = 0; i < QUEUED; i++) ids.push((await runtime.submit({ graph: "city_weather", message: MESSAGE, queue: true })).run_id);
    const start = Date.now();
    const cpuStart = cpuMs();
    const eluStart = performance.eventLoopUtilization();
    const stats = await runtime.worker({ concurrency: 200, once: true, pollMs: 20 }).run();
    // Share of the wall time the event loop was busy: near 1 means one core's worth of CPU is the limit.
    const elu = performance.eventLoopUtilization(eluStart).utilization;
    const cpuMsPerRun = (cpuMs() - cpuStart) / QUEUED;
    const seconds = (Date.now() - start) / 1000;
    const runs = await Promise.all(ids.map((id) => runtimeInternals(runtime).runs.get(id)));
    const failed = runs.filter((r) => r.status !== "SUCCEEDED").length;
    if (failed > 0) throw new Error(`${failed} runs did not succeed (${JSON.stringify(stats)})`);
    // Latency of a run once it was claimed: first RUNNING event to finish.
    const latencies = (await Promise.all(runs.map(async (r) => {
      const started = (await runtimeInternals(runtime).runs.events(r.runId)).find((e) => e.to === "RUNNING");
      return (r.finishedAt ?? 0) - (started?.at ?? start);
    }))).sort((a, b) => a - b);
    // Time from the start of the batch until a run was claimed: long waits with short latencies would mean unfair claiming.
    const waits = (await Promise.all(runs.map(async (r) => ((await runtimeInternals(runtime).runs.events(r.runId)).find((e) => e.to === "RUNNING")?.at ?? start) - start))).sort((a, b) => a - b);
    const meanLatencyMs = latencies.reduce((sum, l) => sum + l, 0) / latencies.length;
    return {
      runsPerS: QUEUED / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), elu, inFlight: (meanLatencyMs / 1000) * (QUEUED / seconds),
      waitP50: percentile(waits, 50), waitP99: percentile(waits, 99), cpuMsPerRun,
    };
  } finally {
    await runtime.close();
  }
}

// Overhead: every side in alternating blocks within a round, ROUNDS rounds; ratios per round, their median and spread.
const sides = await openSides(CONFIG);
const rounds: RoundFigures[] = [];
for (let r = 0; r < ROUNDS; r++) rounds.push(await measureRound(sides, SEQUENTIAL, BLOCKS));
for (const side of Object.values(sides)) await side.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fig = (side: string, key: "ms" | "cpuMs") => median(rounds.map((r) => r[side]?.[key] ?? 0));
const ratios = (a: string, b: string, key: "ms" | "cpuMs" = "cpuMs") => rounds.map((r) => (r[a]?.[key] ?? 0) / (r[b]?.[key] ?? 1));
const spread = (xs: number[]) => `median ${median(xs).toFixed(2)}, rounds ${xs.map((x) => x.toFixed(2)).join(" / ")}`;
console.log(`overhead: ${SEQUENTIAL} sequential city_weather runs per side and round (2 turns, 3 tool calls), ${ROUNDS} rounds of ${BLOCKS} alternating blocks`);
const describeSide = (name: string, text: string) => console.log(`  ${text.padEnd(96)} ${fig(name, "ms").toFixed(2)} ms/run, CPU ${fig(name, "cpuMs").toFixed(2)} ms/run`);
describeSide("langgraphV2Sync", "createReactAgent v2 + official SqliteSaver, durability sync, same simulated service:");
describeSide("langgraph", "createReactAgent v1 + official SqliteSaver, default (async) durability, same simulated service:");
describeSide("langgraphPlainTool", "createReactAgent v1 + official SqliteSaver, async, a tool returning a constant:");
describeSide("langgraphFanOut", "createReactAgent v2 + official SqliteSaver, async, a tool returning a constant:");
describeSide("graphAlone", "agentrt's city_weather graph alone, no checkpointer:");
describeSide("graphSaver", "agentrt's city_weather graph + its SqliteSaver (sync):");
describeSide("agentrt", "agentrt full path (run record, lease, fenced checkpoints, ledger, trace):");
const overSync = ratios("agentrt", "langgraphV2Sync");
const overV1 = ratios("agentrt", "langgraph");
console.log(`  CPU per run, agentrt over createReactAgent v2 + sync (equal guarantees): ${spread(overSync)}`);
console.log(`  CPU per run, agentrt over createReactAgent v1 + async (LangGraph's defaults): ${spread(overV1)}`);
console.log(`  wall per run, agentrt over v2 + sync: ${spread(ratios("agentrt", "langgraphV2Sync", "ms"))}; over v1 + async: ${spread(ratios("agentrt", "langgraph", "ms"))}`);
console.log(`  CPU per run, agentrt's graph alone / + its saver over v2 + sync: ${spread(ratios("graphAlone", "langgraphV2Sync"))} / ${spread(ratios("graphSaver", "langgraphV2Sync"))}`);
const [rt, lg, plain, fan] = [fig("agentrt", "ms"), fig("langgraph", "ms"), fig("langgraphPlainTool", "ms"), fig("langgraphFanOut", "ms")];
const [alone, saved] = [fig("graphAlone", "ms"), fig("graphSaver", "ms")];
const overheadFigures = {
  cpu_over_langgraph_sync: Number(median(overSync).toFixed(2)), cpu_over_langgraph_sync_rounds: overSync.map((x) => Number(x.toFixed(2))),
  cpu_over_langgraph_v1_async: Number(median(overV1).toFixed(2)), cpu_over_langgraph_v1_async_rounds: overV1.map((x) => Number(x.toFixed(2))),
  agentrt_cpu_ms: Number(fig("agentrt", "cpuMs").toFixed(2)), langgraph_sync_cpu_ms: Number(fig("langgraphV2Sync", "cpuMs").toFixed(2)),
  overhead_vs_langgraph: Number((rt / plain).toFixed(2)), overhead_vs_langgraph_same_tool: Number((rt / lg).toFixed(2)),
  overhead_vs_langgraph_fanout: Number((rt / fan).toFixed(2)), langgraph_fanout_ms: Number(fan.toFixed(2)),
  graph_alone_ms: Number(alone.toFixed(2)), graph_with_saver_ms: Number(saved.toFixed(2)), agentrt_ms: Number(rt.toFixed(2)), langgraph_ms: Number(plain.toFixed(2)), langgraph_same_tool_ms: Number(lg.toFixed(2)),
};
if (process.env.BENCH_SKIP_SCALE === "1") {
  console.log(JSON.stringify(overheadFigures));
  process.exit(0);
}
const s = await scale();
console.log(`scale: ${QUEUED} queued runs, 50 ms per tool call, worker concurrency 200: ${s.runsPerS.toFixed(1)} runs/s, p50 ${s.p50} ms, p99 ${s.p99} ms`);
console.log(`  claimed after: p50 ${s.waitP50} ms, p99 ${s.waitP99} ms; event loop busy ${(s.elu * 100).toFixed(0)}% of the time; ${s.cpuMsPerRun.toFixed(1)} CPU ms per run`);
// One event loop runs every claimed run, so latency ≈ runs in flight ÷ throughput (Little's law); the worker stops claiming while its loop lags.
console.log(`  runs in flight on average: ${s.inFlight.toFixed(0)} of at most 200 (latency ≈ in flight ÷ throughput on one saturated event loop)`);
const processes = Math.max(2, availableParallelism());
const multi = await scaleProcesses(processes);
console.log(`scale over ${processes} worker processes (agentrt worker --once, concurrency ${Math.ceil(200 / processes)} each): ${multi.runsPerS.toFixed(1)} runs/s, p50 ${multi.p50} ms, p99 ${multi.p99} ms from claim (${multi.fromSubmitP99} ms from submission, worker start-up included; runs/s from the first claim; the processes start cold)`);
console.log(JSON.stringify({ ...overheadFigures, runs_per_s: Number(s.runsPerS.toFixed(1)), p99_ms: s.p99,
  runs_per_s_processes: Number(multi.runsPerS.toFixed(1)), p99_ms_processes: multi.p99, worker_processes: processes }));
