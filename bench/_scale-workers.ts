// Scale part 1: N queued city_weather runs (50 ms per get_weather call) executed by P real `agentrt worker
// --once` processes on one database; throughput, latency from claim to end, and tool calls performed twice.
import { Runtime } from "../src/runtime/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";
import { openWorld } from "../src/testing/index.js";
import { agentrt, CONFIG, percentile } from "./_scale-pg.js";

const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
/** get_weather calls one city_weather run makes (one per city named in MESSAGE). */
const CALLS_PER_RUN = 3;
/** Simulated latency of each get_weather call (AGENTRT_SIM_LATENCY_MS in the workers). */
export const TOOL_LATENCY_MS = 50;

/** What one worker measurement found. */
export interface WorkerFigures {
  processes: number;
  concurrency: number;
  runs: number;
  /** Runs over the time from the first claim to the last finish (the workers' staggered cold starts included). */
  runs_per_s: number;
  /** Runs finished while every worker was claiming (from the last worker's first claim to the first worker's last claim). */
  runs_per_s_steady: number;
  p50_ms: number;
  p99_ms: number;
  /** get_weather calls the simulated service performed beyond 3 per run (0 when none ran twice). */
  double_executions: number;
  /** (run, tool_call_id) pairs with more than one tool_call span: a call the runtime started twice. */
  duplicate_tool_spans: number;
  /** Seconds from the bench starting the processes to their first claim, per process (cold start: module loading). */
  first_claim_s: number[];
}

/** Options of {@link measureWorkers}. */
export interface WorkerRunOptions {
  /** A PostgreSQL URL or a SQLite file. */
  db: string;
  processes: number;
  concurrency: number;
  runs: number;
  /** Called once the runs are queued, before the workers start (e.g. to drop a trigger in a scratch schema). */
  beforeWorkers?: () => Promise<void>;
}

/** Queues `runs` city_weather runs, runs `processes` workers until the queue is empty, and reads the outcome. */
export async function measureWorkers(options: WorkerRunOptions): Promise<WorkerFigures> {
  const { db, processes, concurrency, runs } = options;
  const runtime = Runtime.open({ db, config: CONFIG });
  try {
    await runtime.ready();
    const ids: string[] = [];
    for (let i = 0; i < runs; i += 25) {
      const batch = Array.from({ length: Math.min(25, runs - i) }, () => runtime.submit({ graph: "city_weather", message: MESSAGE, queue: true }));
      ids.push(...(await Promise.all(batch)).map((v) => v.run_id));
    }
    await options.beforeWorkers?.();
    const started = Date.now();
    const workers = Array.from({ length: processes }, (_, i) => agentrt(
      ["worker", "--once", "--db", db, "--concurrency", String(concurrency), "--worker-id", `bench-scale-${i}`],
      { AGENTRT_SIM_LATENCY_MS: String(TOOL_LATENCY_MS) },
    ));
    const codes = await Promise.all(workers.map((w) => w.exited));
    codes.forEach((code, i) => {
      if (code !== 0) throw new Error(`bench scale: worker ${i} exited ${String(code)}: ${workers[i]?.stderr().slice(-2000) ?? ""}`);
    });
    return await readOutcome(runtime, ids, { processes, concurrency, started });
  } finally {
    await runtime.close();
  }
}

async function readOutcome(runtime: Runtime, ids: string[], meta: { processes: number; concurrency: number; started: number }): Promise<WorkerFigures> {
  const internals = runtimeInternals(runtime);
  const rows: Array<{ claimedAt: number; finishedAt: number; actor: string }> = [];
  let duplicates = 0;
  for (const id of ids) {
    const run = await internals.runs.get(id);
    if (run.status !== "SUCCEEDED") throw new Error(`bench scale: run ${id} ended ${run.status} (${run.errorCode ?? ""})`);
    const claim = (await internals.runs.events(id)).find((e) => e.to === "RUNNING");
    if (claim === undefined || run.finishedAt === null) throw new Error(`bench scale: run ${id} has no claim or finish time`);
    rows.push({ claimedAt: claim.at, finishedAt: run.finishedAt, actor: claim.actor ?? "" });
    const toolSpans = (await runtime.trace.spans(id)).filter((s) => s.kind === "tool_call").map((s) => s.toolCallId ?? s.spanId);
    duplicates += toolSpans.length - new Set(toolSpans).size;
  }
  const performed = (await openWorld({ db: internals.storage.db }).snapshot()).calls.get_weather ?? 0;
  const latencies = rows.map((r) => r.finishedAt - r.claimedAt).sort((a, b) => a - b);
  const firstClaim = Math.min(...rows.map((r) => r.claimedAt));
  const lastFinish = Math.max(...rows.map((r) => r.finishedAt));
  // The window in which every process was claiming: after the slowest cold start, before the first ran dry.
  const byActor = new Map<string, number[]>();
  for (const r of rows) byActor.set(r.actor, [...(byActor.get(r.actor) ?? []), r.claimedAt]);
  const from = Math.max(...[...byActor.values()].map((claims) => Math.min(...claims)));
  const to = Math.min(...[...byActor.values()].map((claims) => Math.max(...claims)));
  const inWindow = rows.filter((r) => r.finishedAt >= from && r.finishedAt <= to).length;
  const spanRate = ids.length / ((lastFinish - firstClaim) / 1000);
  return {
    processes: meta.processes,
    concurrency: meta.concurrency,
    runs: ids.length,
    runs_per_s: Number(spanRate.toFixed(1)),
    runs_per_s_steady: to - from >= 2000 && byActor.size === meta.processes ? Number((inWindow / ((to - from) / 1000)).toFixed(1)) : Number(spanRate.toFixed(1)),
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    double_executions: Math.max(0, performed - CALLS_PER_RUN * ids.length),
    duplicate_tool_spans: duplicates,
    first_claim_s: [...byActor.values()].map((claims) => Number(((Math.min(...claims) - meta.started) / 1000).toFixed(1))).sort((a, b) => a - b),
  };
}
