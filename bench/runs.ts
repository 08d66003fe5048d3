/**
 * Runs bench (issue 4): (a) overhead of agentrt's full run path (run record,
 * lease, checkpoints, trace) on 300 sequential city_weather runs against
 * LangGraph's createReactAgent with the official SqliteSaver and a stateless
 * scripted model; (b) 1,000 queued runs with 50 ms simulated tool latency
 * through one in-process worker at concurrency 200, then through one `agentrt worker` process per core
 * (at least 2; started cold, unlike the warm in-process worker).
 * Last line: {"runs_per_s", "p99_ms", "overhead_vs_langgraph"} — overhead against the setup (a tool that
 * returns a constant); `overhead_vs_langgraph_same_tool` against a baseline calling the same simulated service;
 * `overhead_vs_langgraph_fanout` against createReactAgent v2, which checkpoints each tool call as its own branch.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { SqliteSaver as OfficialSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { weatherFor, weatherSystem } from "../graphs/sim/weather.js";
import { SqliteSaver } from "../checkpointers/index.js";
import { openDatabase } from "../src/db/index.js";
import { Runtime } from "../src/runtime/index.js";
import { ScriptedChatModel, callSim } from "../src/testing/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = join(ROOT, "langgraph.json");
const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
const CITIES = ["Beijing", "Shanghai", "Shenzhen"];
const SEQUENTIAL = Number(process.env.BENCH_RUNS ?? 300);
const QUEUED = Number(process.env.BENCH_QUEUED ?? 1000);
const WARMUP = 10;

const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), "agentrt-bench-runs-")), name);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Process CPU ms used so far (user + system): steadier than wall time on a machine shared with other work. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
type Side = "agentrt" | "langgraph" | "langgraphPlainTool" | "langgraphFanOut" | "graphAlone" | "graphSaver";
const cpuPerRun: Record<Side, number[]> = { agentrt: [], langgraph: [], langgraphPlainTool: [], langgraphFanOut: [], graphAlone: [], graphSaver: [] };

async function timeSequential(side: Side, runs: number, once: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await once(-1 - i);
  const start = performance.now();
  const cpuStart = cpuMs();
  for (let i = 0; i < runs; i++) await once(i);
  cpuPerRun[side].push((cpuMs() - cpuStart) / runs);
  return (performance.now() - start) / runs;
}

/** agentrt: submit runs here (run record, lease, SqliteSaver checkpoints, trace) until SUCCEEDED. */
async function agentrtMsPerRun(): Promise<number> {
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
  const runtime = Runtime.open({ db: tempDb("agentrt.db"), config: CONFIG });
  try {
    return await timeSequential("agentrt", SEQUENTIAL, async () => {
      const view = await runtime.submit({ graph: "city_weather", message: MESSAGE });
      if (view.status !== "SUCCEEDED") throw new Error(`city_weather ended ${view.status}`);
    });
  } finally {
    runtime.close();
  }
}

/**
 * The baseline: createReactAgent + the official SqliteSaver, same two turns and three calls, a stateless script.
 * `sameTool`: its get_weather calls the simulated weather service city_weather calls (one counted write per
 * call in the same kind of SQLite file), so the tool's own work is equal on both sides and the ratio is the
 * runtime's; otherwise a tool that only returns a string (the original setup, printed for comparison).
 * `fanOut`: createReactAgent's "v2", one task (and one checkpointed branch) per tool call, as city_weather
 * runs them so a crash never re-runs a finished sibling; "v1" (the setup) runs a turn's calls as one task.
 */
async function langgraphMsPerRun(sameTool: boolean, fanOut = false): Promise<number> {
  const file = tempDb("langgraph.db");
  const simDb = sameTool ? openDatabase(file) : undefined;
  const never = new AbortController();
  const getWeather = tool(async ({ city }: { city: string }, config) => {
    if (simDb === undefined) return JSON.stringify({ city, tempC: 21, condition: "sunny" });
    const ctx = { db: simDb, idempotencyKey: config.toolCall?.id ?? city, signal: never.signal, setExternalOperationId: () => undefined };
    return JSON.stringify(await callSim(ctx, { system: weatherSystem, tool: "get_weather", sideEffect: false }, () => weatherFor(city)));
  }, {
    name: "get_weather", description: "Current weather for a city", schema: z.object({ city: z.string() }),
  });
  const model = new ScriptedChatModel({
    script: ({ messages }) => messages.some((m) => m instanceof ToolMessage)
      ? { content: "Sunny in all three cities." }
      : { toolCalls: CITIES.map((city) => ({ name: "get_weather", args: { city } })) },
  });
  const checkpointer = OfficialSqliteSaver.fromConnString(file);
  const agent = createReactAgent({ llm: model, tools: [getWeather], checkpointSaver: checkpointer, version: fanOut ? "v2" : "v1" });
  try {
    return await timeSequential(fanOut ? "langgraphFanOut" : sameTool ? "langgraph" : "langgraphPlainTool", SEQUENTIAL, async (i) => {
      await agent.invoke({ messages: [{ role: "user", content: MESSAGE }] }, { configurable: { thread_id: `t${i}` } });
    });
  } finally {
    simDb?.close();
  }
}

/**
 * Layers of agentrt's own path, to show where its time goes: the city_weather agent graph invoked
 * directly with no checkpointer (nothing persisted but the simulated service's counter), then with
 * agentrt's SqliteSaver (sync durability, as runs use it); no run record, lease or trace.
 */
async function graphMsPerRun(withSaver: boolean): Promise<number> {
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
  const db = openDatabase(tempDb("graph.db"));
  const { graph } = await import("../graphs/city_weather.js");
  const copy = graph.withConfig({});
  if (withSaver) copy.checkpointer = new SqliteSaver(db);
  try {
    return await timeSequential(withSaver ? "graphSaver" : "graphAlone", SEQUENTIAL, async (i) => {
      await copy.invoke({ messages: [{ role: "user", content: MESSAGE }] }, { configurable: { thread_id: `g${i}` }, context: { db }, durability: "sync" } as never);
    });
  } finally {
    db.close();
  }
}

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
    const runs = ids.map((id) => runtimeInternals(runtime).runs.get(id));
    const failed = runs.filter((r) => r.status !== "SUCCEEDED").length;
    if (failed > 0) throw new Error(`${failed} runs did not succeed with ${processes} worker processes`);
    const claimedAt = runs.map((r) => runtimeInternals(runtime).runs.events(r.runId).find((e) => e.to === "RUNNING")?.at ?? start);
    const latencies = runs.map((r, i) => (r.finishedAt ?? 0) - (claimedAt[i] ?? start)).sort((a, b) => a - b);
    const fromSubmit = runs.map((r) => (r.finishedAt ?? 0) - start).sort((a, b) => a - b);
    // From the first claim to the last finish: the workers' start-up (module loading) is not throughput.
    const seconds = (Math.max(...runs.map((r) => r.finishedAt ?? 0)) - Math.min(...claimedAt)) / 1000;
    return { runsPerS: QUEUED / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), fromSubmitP99: percentile(fromSubmit, 99) };
  } finally {
    runtime.close();
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
    const runs = ids.map((id) => runtimeInternals(runtime).runs.get(id));
    const failed = runs.filter((r) => r.status !== "SUCCEEDED").length;
    if (failed > 0) throw new Error(`${failed} runs did not succeed (${JSON.stringify(stats)})`);
    // Latency of a run once it was claimed: first RUNNING event to finish.
    const latencies = runs.map((r) => {
      const started = runtimeInternals(runtime).runs.events(r.runId).find((e) => e.to === "RUNNING");
      return (r.finishedAt ?? 0) - (started?.at ?? start);
    }).sort((a, b) => a - b);
    // Time from the start of the batch until a run was claimed: long waits with short latencies would mean unfair claiming.
    const waits = runs.map((r) => (runtimeInternals(runtime).runs.events(r.runId).find((e) => e.to === "RUNNING")?.at ?? start) - start).sort((a, b) => a - b);
    const meanLatencyMs = latencies.reduce((sum, l) => sum + l, 0) / latencies.length;
    return {
      runsPerS: QUEUED / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), elu, inFlight: (meanLatencyMs / 1000) * (QUEUED / seconds),
      waitP50: percentile(waits, 50), waitP99: percentile(waits, 99), cpuMsPerRun,
    };
  } finally {
    runtime.close();
  }
}

const lg1 = await langgraphMsPerRun(true);
const plain1 = await langgraphMsPerRun(false);
const fan1 = await langgraphMsPerRun(false, true);
const rt1 = await agentrtMsPerRun();
const alone1 = await graphMsPerRun(false);
const saved1 = await graphMsPerRun(true);
// Interleaved second round so a burst of load on the shared machine hits every side.
const lg2 = await langgraphMsPerRun(true);
const plain2 = await langgraphMsPerRun(false);
const fan2 = await langgraphMsPerRun(false, true);
const rt2 = await agentrtMsPerRun();
const alone2 = await graphMsPerRun(false);
const saved2 = await graphMsPerRun(true);
const lg = Math.min(lg1, lg2);
const plain = Math.min(plain1, plain2);
const fan = Math.min(fan1, fan2);
const rt = Math.min(rt1, rt2);
console.log(`overhead: ${SEQUENTIAL} sequential city_weather runs (2 turns, 3 tool calls), best of 2 rounds`);
console.log(`  createReactAgent + official SqliteSaver, same simulated weather service: ${lg.toFixed(2)} ms/run (${(1000 / lg).toFixed(0)} runs/s)  rounds ${lg1.toFixed(2)} / ${lg2.toFixed(2)}`);
console.log(`  createReactAgent + official SqliteSaver, a tool returning a constant:    ${plain.toFixed(2)} ms/run (${(1000 / plain).toFixed(0)} runs/s)  rounds ${plain1.toFixed(2)} / ${plain2.toFixed(2)}`);
console.log(`  createReactAgent v2 (one task per tool call) + official SqliteSaver, constant tool: ${fan.toFixed(2)} ms/run (${(1000 / fan).toFixed(0)} runs/s)  rounds ${fan1.toFixed(2)} / ${fan2.toFixed(2)}`);
console.log(`  agentrt full path (run record, lease, checkpoints, trace): ${rt.toFixed(2)} ms/run (${(1000 / rt).toFixed(0)} runs/s)  rounds ${rt1.toFixed(2)} / ${rt2.toFixed(2)}`);
console.log(`  overhead ${(rt / lg).toFixed(2)}× the same-tool baseline, ${(rt / plain).toFixed(2)}× the constant-tool baseline, ${(rt / fan).toFixed(2)}× the v2 (per-call branches) baseline`);
console.log(`  LangGraph's own per-call branches cost ${(fan / plain).toFixed(2)}× its v1 (all calls in one task), same saver and tool`);
const [alone, saved] = [Math.min(alone1, alone2), Math.min(saved1, saved2)];
console.log(`  where agentrt's time goes: its agent graph alone, nothing persisted ${alone.toFixed(2)} ms/run; + its SqliteSaver ${saved.toFixed(2)}; + run record, lease, trace (full path) ${rt.toFixed(2)}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const [cpuRt, cpuLg] = [Math.min(...cpuPerRun.agentrt), Math.min(...cpuPerRun.langgraph)];
console.log(`  CPU per run (best of rounds): agentrt ${cpuRt.toFixed(2)} ms, langgraph ${cpuLg.toFixed(2)} ms, ratio ${(cpuRt / cpuLg).toFixed(2)} (median ratio ${(median(cpuPerRun.agentrt) / median(cpuPerRun.langgraph)).toFixed(2)})`);
console.log("  trace on/off: not measured; the Runtime has no switch to turn its trace recorder off");
const s = await scale();
console.log(`scale: ${QUEUED} queued runs, 50 ms per tool call, worker concurrency 200: ${s.runsPerS.toFixed(1)} runs/s, p50 ${s.p50} ms, p99 ${s.p99} ms`);
console.log(`  claimed after: p50 ${s.waitP50} ms, p99 ${s.waitP99} ms; event loop busy ${(s.elu * 100).toFixed(0)}% of the time; ${s.cpuMsPerRun.toFixed(1)} CPU ms per run`);
// One event loop runs every claimed run, so latency ≈ runs in flight ÷ throughput (Little's law); the worker stops claiming while its loop lags.
console.log(`  runs in flight on average: ${s.inFlight.toFixed(0)} of at most 200 (latency ≈ in flight ÷ throughput on one saturated event loop)`);
const processes = Math.max(2, availableParallelism());
const multi = await scaleProcesses(processes);
console.log(`scale over ${processes} worker processes (agentrt worker --once, concurrency ${Math.ceil(200 / processes)} each): ${multi.runsPerS.toFixed(1)} runs/s, p50 ${multi.p50} ms, p99 ${multi.p99} ms from claim (${multi.fromSubmitP99} ms from submission, worker start-up included; runs/s from the first claim; the processes start cold)`);
console.log(JSON.stringify({ runs_per_s: Number(s.runsPerS.toFixed(1)), p99_ms: s.p99, overhead_vs_langgraph: Number((rt / plain).toFixed(2)), overhead_vs_langgraph_same_tool: Number((rt / lg).toFixed(2)),
  overhead_vs_langgraph_fanout: Number((rt / fan).toFixed(2)), langgraph_fanout_ms: Number(fan.toFixed(2)),
  runs_per_s_processes: Number(multi.runsPerS.toFixed(1)), p99_ms_processes: multi.p99, worker_processes: processes,
  graph_alone_ms: Number(alone.toFixed(2)), graph_with_saver_ms: Number(saved.toFixed(2)), agentrt_ms: Number(rt.toFixed(2)), langgraph_ms: Number(plain.toFixed(2)), langgraph_same_tool_ms: Number(lg.toFixed(2)) }));
