// Critical-path scheduling: 50 seeded random DAGs of 20 nodes (10–200 ms each, times DAG_BENCH_SCALE, default 1),
// each run by agentrt's declared DAG and by a plain LangGraph StateGraph with waiting edges, against the critical path.
// Then order_check through the Runtime: the planned tool DAG (one model turn plans get_order → (inventory ∥ logistics))
// against the ReAct variant, model calls and wall time (offline model 200 ms per call, simulated tools 50 ms).
// Last line: {"dag_over_critical_path", "langgraph_over_critical_path", "order_check_model_calls_planned", "order_check_model_calls_react"}.
import { setMaxListeners } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Annotation, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { defineDag } from "../src/graph/dag/index.js";
import { Runtime } from "../src/runtime/index.js";

// DAG_BENCH_DAGS only shortens a trial run; the bar is measured on all 50.
const DAGS = Number(process.env.DAG_BENCH_DAGS ?? "50");
const NODES = 20;
const SEED = 7;
const SCALE = Number(process.env.DAG_BENCH_SCALE ?? "1");
// LangGraph adds one abort listener per task of a run (21 here); Node warns above 10.
setMaxListeners(64);
const ORDER_CHECK_RUNS = 5;
const TOOL_LATENCY_MS = "50";

/** mulberry32: a tiny seeded PRNG, so every run draws the same DAGs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface RandomDag {
  latency: number[];
  parents: number[][];
}

/** Node i picks 0–3 distinct parents among the nodes before it (node 0 and ~15 % of the others are roots). */
function randomDag(random: () => number): RandomDag {
  const latency: number[] = [];
  const parents: number[][] = [];
  for (let i = 0; i < NODES; i++) {
    latency.push(Math.round(10 + random() * 190));
    const wanted = i === 0 || random() < 0.15 ? 0 : 1 + Math.floor(random() * 3);
    const set = new Set<number>();
    while (set.size < Math.min(wanted, i)) set.add(Math.floor(random() * i));
    parents.push([...set].sort((a, b) => a - b));
  }
  return { latency, parents };
}

function criticalPath(dag: RandomDag): number {
  const finish: number[] = [];
  dag.latency.forEach((ms, i) => finish.push(ms + Math.max(0, ...(dag.parents[i] ?? []).map((p) => finish[p] ?? 0))));
  return Math.max(...finish);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const name = (i: number) => `n${i}`;
const leaves = (dag: RandomDag) => dag.latency.map((_, i) => i).filter((i) => !dag.parents.some((ps) => ps.includes(i)));

function agentrtGraph(dag: RandomDag) {
  const builder = defineDag<{ done: number }>({ state: { done: { default: () => 0, reducer: (a, b) => a + b } } });
  dag.latency.forEach((ms, i) => {
    builder.node(name(i), async () => (await sleep(ms * SCALE), { done: 1 }), { after: (dag.parents[i] ?? []).map(name) });
  });
  return builder.compile({ checkpointer: new MemorySaver() });
}

function langgraphGraph(dag: RandomDag) {
  const State = Annotation.Root({ done: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
  const graph = new StateGraph(State) as unknown as StateGraph<typeof State.spec, unknown, unknown, string>;
  dag.latency.forEach((ms, i) => graph.addNode(name(i), async () => (await sleep(ms * SCALE), { done: 1 })));
  dag.parents.forEach((ps, i) => {
    if (ps.length === 0) graph.addEdge(START, name(i));
    else if (ps.length === 1) graph.addEdge(name(ps[0] as number), name(i));
    else graph.addEdge(ps.map(name), name(i));
  });
  for (const leaf of leaves(dag)) graph.addEdge(name(leaf), END);
  return graph.compile({ checkpointer: new MemorySaver() });
}

/** The same DAG as bare promises: the floor this machine's timers and load allow, no framework at all. */
async function barePromises(dag: RandomDag): Promise<void> {
  const done: Promise<void>[] = [];
  dag.latency.forEach((ms, i) => {
    const inputs = (dag.parents[i] ?? []).map((p) => done[p] as Promise<void>);
    done.push(Promise.all(inputs).then(async () => void (await sleep(ms * SCALE))));
  });
  await Promise.all(done);
}

async function makespan(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;

interface OrderCheckFigures {
  modelCalls: number;
  wallMs: number;
}

/** Runs "Check order 10086" ORDER_CHECK_RUNS times on each variant through a real Runtime; median wall time. */
async function orderCheck(): Promise<{ planned: OrderCheckFigures; react: OrderCheckFigures; modelLatencyMs: number }> {
  delete process.env.OPENAI_API_KEY;
  process.env.AGENTRT_SIM_LATENCY_MS = TOOL_LATENCY_MS;
  const { MODEL_LATENCY_MS } = await import("./_order-check-graphs.js");
  const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-dag-"));
  // A langgraph.json of the bench's own: the repo's lists only the planned agent under `order_check`.
  const graphs = fileURLToPath(new URL("./_order-check-graphs.ts", import.meta.url));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { planned: `${graphs}:planned`, react: `${graphs}:react` } }));
  const runtime = Runtime.open({ db: join(dir, "runs.db"), config });
  try {
    const measure = async (graph: string): Promise<OrderCheckFigures> => {
      const calls: number[] = [];
      const walls: number[] = [];
      for (let i = 0; i < ORDER_CHECK_RUNS; i++) {
        const start = performance.now();
        const run = await runtime.submit({ graph, message: "Check order 10086", user: "bench" });
        walls.push(performance.now() - start);
        if (run.status !== "SUCCEEDED") throw new Error(`order_check ${graph} ended ${run.status}`);
        calls.push(run.usage.model_calls);
      }
      return { modelCalls: median(calls), wallMs: median(walls) };
    };
    await measure("planned"); // warm-up: module load, first statements
    return { planned: await measure("planned"), react: await measure("react"), modelLatencyMs: MODEL_LATENCY_MS };
  } finally {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
    delete process.env.AGENTRT_SIM_LATENCY_MS;
  }
}

async function main(): Promise<void> {
  const random = prng(SEED);
  const rows: { cp: number; dag: number; lg: number; bare: number }[] = [];
  process.stdout.write(`${DAGS} DAGs × ${NODES} nodes, latencies 10–200 ms × scale ${SCALE}, seed ${SEED}\n`);
  process.stdout.write(" #  crit.path(ms)  agentrt/cp  langgraph/cp  promises/cp\n");
  // Warm-up on a DAG outside the seeded draw: the first run of each kind pays module JIT, not scheduling.
  const warm = randomDag(prng(SEED + 1));
  await agentrtGraph(warm).invoke({}, { configurable: { thread_id: "warm-dag" }, recursionLimit: 200 });
  await langgraphGraph(warm).invoke({}, { configurable: { thread_id: "warm-lg" }, recursionLimit: 200 });
  for (let d = 0; d < DAGS; d++) {
    const dag = randomDag(random);
    const cp = criticalPath(dag) * SCALE;
    const ours = agentrtGraph(dag);
    const theirs = langgraphGraph(dag);
    const config = (t: string) => ({ configurable: { thread_id: `${t}-${d}` }, recursionLimit: 200 });
    const dagMs = await makespan(() => ours.invoke({}, config("dag")));
    const lgMs = await makespan(() => theirs.invoke({}, config("lg")));
    const bareMs = await makespan(() => barePromises(dag));
    rows.push({ cp, dag: dagMs / cp, lg: lgMs / cp, bare: bareMs / cp });
    const cells = [dagMs / cp, lgMs / cp, bareMs / cp].map((x) => x.toFixed(3).padStart(12)).join("");
    process.stdout.write(`${String(d + 1).padStart(2)}  ${cp.toFixed(0).padStart(13)}${cells}\n`);
  }
  const summary = (xs: number[]) => ({ median: r3(median(xs)), max: r3(Math.max(...xs)), over110: r3(xs.filter((x) => x > 1.1).length / xs.length) });
  const ours = summary(rows.map((r) => r.dag));
  const theirs = summary(rows.map((r) => r.lg));
  process.stdout.write(`agentrt   / critical path: median ${ours.median}, max ${ours.max}, share over 1.10: ${(ours.over110 * 100).toFixed(0)} %\n`);
  process.stdout.write(`langgraph / critical path: median ${theirs.median}, max ${theirs.max}, share over 1.10: ${(theirs.over110 * 100).toFixed(0)} %\n`);
  const floor = summary(rows.map((r) => r.bare));
  process.stdout.write(`promises  / critical path: median ${floor.median}, max ${floor.max} (this machine's floor: timers and load)\n`);
  const oc = await orderCheck();
  const line = (label: string, f: OrderCheckFigures) => `  ${label}: ${f.modelCalls} model calls, ${f.wallMs.toFixed(0)} ms (median of ${ORDER_CHECK_RUNS})\n`;
  process.stdout.write(`order_check via Runtime (offline model ${oc.modelLatencyMs} ms per call, tools ${TOOL_LATENCY_MS} ms):\n`);
  process.stdout.write(line("planned tool DAG", oc.planned) + line("ReAct           ", oc.react));
  process.stdout.write(
    `${JSON.stringify({
      dag_over_critical_path: ours.median,
      langgraph_over_critical_path: theirs.median,
      dag_share_over_1_10: ours.over110,
      order_check_model_calls_planned: oc.planned.modelCalls,
      order_check_model_calls_react: oc.react.modelCalls,
      order_check_wall_ms_planned: Math.round(oc.planned.wallMs),
      order_check_wall_ms_react: Math.round(oc.react.wallMs),
    })}\n`,
  );
}

await main();
