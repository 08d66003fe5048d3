/**
 * History bench (issue 21, target 4): does a long history slow the everyday operations down?
 * (a) One thread of BENCH_TURNS (1,000) turns against one of 10, each turn waiting for an approval: resume latency
 *     (Runtime.approve → the next model call returns) and getState of the thread, alternating between the threads.
 *     Resume is timed twice: approved the moment the run waits (back to back, the headline), and approved after
 *     THINK_MS of idle time, as a person approves; work the runtime does in idle time then counts as saved latency
 *     (never as saved CPU: the approve's CPU is printed beside it).
 * (b) A file holding BENCH_FINISHED (100,000) finished runs against an empty one, both with one run waiting for
 *     approval: what `agentrt runs --status WAITING_APPROVAL` and `agentrt status ID` do (RunReader, read-only),
 *     with the file at rest (no -wal: the reader takes a snapshot) and live (a writer has it open), and a claim of a
 *     queued run. The finished runs are 50 real city_weather runs whose runs/run_events rows are copied.
 * Ratios are medians of BENCH_REPEATS (15) alternating pairs; last line JSON.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openHistoryTurns } from "./_history-turns.js";
import { Runtime, RunReader } from "../src/runtime/index.js";
import { runtimeInternals, runtimeSqlite } from "../src/runtime/internals.js";
import { Scheduler } from "../src/runs/index.js";

const TURNS = Number(process.env.BENCH_TURNS ?? 1000);
const FINISHED = Number(process.env.BENCH_FINISHED ?? 100_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 15);
/** Idle time (ms) between the wait and the approve in the human-paced resume. */
const THINK_MS = 50;
process.env.AGENTRT_SIM_LATENCY_MS = "0";
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-history-"));
const config = join(dir, "langgraph.json");
writeFileSync(config, JSON.stringify({ graphs: {
  history_agent: `${fileURLToPath(new URL("./_history-graph.ts", import.meta.url))}:graph`,
  city_weather: `${fileURLToPath(new URL("../graphs/city_weather.ts", import.meta.url))}:graph`,
} }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
async function timed<T>(fn: () => T | Promise<T>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

// (a) Thread history.
const { runtime, turn, getState, cpu } = await openHistoryTurns(join(dir, "threads.db"), config);

const [small, big] = ["thread_small", "thread_big"];
for (let i = 0; i < 10; i++) await turn(small);
let lap = performance.now();
for (let i = 0; i < TURNS; i++) {
  await turn(big);
  if ((i + 1) % 100 === 0) {
    // Per-turn cost of the last 100 turns: flat when building a thread is linear, rising when it is quadratic.
    process.stderr.write(`  ${i + 1}/${TURNS} turns, ${((performance.now() - lap) / 100).toFixed(1)} ms/turn\n`);
    lap = performance.now();
  }
}
const resume = { small: [] as number[], big: [] as number[] };
const state = { small: [] as number[], big: [] as number[] };
const paced = { small: [] as number[], big: [] as number[] };
const pacedCpu = { small: [] as number[], big: [] as number[] };
for (let r = 0; r < REPEATS; r++) {
  resume.small.push(await turn(small));
  resume.big.push(await turn(big));
  state.small.push(await getState(small));
  state.big.push(await getState(big));
}
for (let r = 0; r < REPEATS; r++) {
  for (const [side, thread] of [["small", small], ["big", big]] as const) {
    paced[side].push(await turn(thread, undefined, THINK_MS));
    pacedCpu[side].push(cpu.approve);
  }
}
await runtime.close();
const resumeRatios = resume.big.map((b, i) => b / (resume.small[i] ?? 1));
const stateRatios = state.big.map((b, i) => b / (state.small[i] ?? 1));
const pacedRatios = paced.big.map((b, i) => b / (paced.small[i] ?? 1));
console.log(`thread of ${TURNS + 10} turns vs 10 turns (each turn one approval), ${REPEATS} alternating pairs:`);
console.log(`  resume (approve → next model call): ${median(resume.big).toFixed(1)} ms vs ${median(resume.small).toFixed(1)} ms, ratio median ${median(resumeRatios).toFixed(2)} (pairs ${spread(resumeRatios)})`);
console.log(`  resume after ${THINK_MS} ms idle: ${median(paced.big).toFixed(1)} ms vs ${median(paced.small).toFixed(1)} ms, ratio median ${median(pacedRatios).toFixed(2)} (pairs ${spread(pacedRatios)}); approve CPU ${median(pacedCpu.big).toFixed(1)} vs ${median(pacedCpu.small).toFixed(1)} ms`);
console.log(`  getState: ${median(state.big).toFixed(2)} ms vs ${median(state.small).toFixed(2)} ms, ratio median ${median(stateRatios).toFixed(2)} (pairs ${spread(stateRatios)})`);

// (b) Run history.
/** A file with `finished` finished runs (copies of real ones) and one run waiting for approval; its id. */
async function runsFile(name: string, finished: number): Promise<{ path: string; waitingId: string }> {
  const path = join(dir, name);
  const rt = Runtime.open({ db: path, config });
  try {
    const templates = Math.min(50, finished);
    for (let i = 0; i < templates; i++) await rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen" });
    const copies = Math.ceil((finished - templates) / Math.max(1, templates));
    if (copies > 0) {
      runtimeSqlite(rt).exec(`
        CREATE TEMP TABLE copies AS WITH RECURSIVE n(c) AS (SELECT 1 UNION ALL SELECT c + 1 FROM n WHERE c < ${copies}) SELECT c FROM n;
        CREATE TEMP TABLE template_runs AS SELECT * FROM runs;
        CREATE TEMP TABLE template_events AS SELECT * FROM run_events;`);
      const runCols = (runtimeSqlite(rt).prepare("SELECT name FROM pragma_table_info('runs')").all() as { name: string }[]).map((c) => c.name);
      const pick = (col: string) => col === "run_id" ? "t.run_id || '_' || n.c" : col === "thread_id" ? "t.thread_id || '_' || n.c" : `t.${col}`;
      runtimeSqlite(rt).exec(`BEGIN;
        INSERT INTO runs (${runCols.join(", ")}) SELECT ${runCols.map(pick).join(", ")} FROM template_runs t, copies n;
        INSERT INTO run_events (run_id, from_status, to_status, at, actor, fencing_token, error_code, reason)
          SELECT e.run_id || '_' || n.c, e.from_status, e.to_status, e.at, e.actor, e.fencing_token, e.error_code, e.reason FROM template_events e, copies n;
        COMMIT;`);
    }
    const waiting = await rt.submit({ graph: "history_agent", message: "restart payments" });
    if (waiting.status !== "WAITING_APPROVAL") throw new Error(`waiting run ended ${waiting.status}`);
    return { path, waitingId: waiting.run_id };
  } finally {
    await rt.close();
  }
}
const empty = await runsFile("empty.db", 0);
const full = await runsFile("full.db", FINISHED);
const listWaiting = (path: string) => timed(async () => {
  const r = RunReader.open(path);
  try {
    if (!(await r.hasOverdueWait())) await r.list({ status: "WAITING_APPROVAL", limit: 100 });
  } finally {
    r.close();
  }
});
const status = (path: string, id: string) => timed(async () => {
  const r = RunReader.open(path);
  try {
    if (!(await r.hasOverdueWait(id))) await r.get(id);
  } finally {
    r.close();
  }
});
type Op = "list_at_rest" | "status_at_rest" | "list_live" | "status_live" | "claim";
const ops: Op[] = ["list_at_rest", "status_at_rest", "list_live", "status_live", "claim"];
const times: Record<Op, { empty: number[]; full: number[] }> = Object.fromEntries(ops.map((op) => [op, { empty: [], full: [] }])) as never;
for (const op of ["list_at_rest", "status_at_rest"] as const) {
  for (let r = 0; r < REPEATS; r++) {
    for (const [side, file] of [["empty", empty], ["full", full]] as const) {
      times[op][side].push(op === "list_at_rest" ? await listWaiting(file.path) : await status(file.path, file.waitingId));
    }
  }
}
const writers = { empty: Runtime.open({ db: empty.path, config }), full: Runtime.open({ db: full.path, config }) };
for (let r = 0; r < REPEATS; r++) {
  for (const [side, file] of [["empty", empty], ["full", full]] as const) {
    const rt = writers[side];
    times.list_live[side].push(await listWaiting(file.path));
    times.status_live[side].push(await status(file.path, file.waitingId));
    const queued = await rt.submit({ graph: "city_weather", message: "Weather for Beijing", queue: true });
    let claimedId: string | undefined;
    times.claim[side].push(await timed(async () => {
      claimedId = (await new Scheduler(runtimeInternals(rt).runs).claimNext({ workerId: "bench", leaseMs: 30_000 }))?.run.runId;
    }));
    if (claimedId !== queued.run_id) throw new Error(`claimed ${claimedId ?? "nothing"}, expected ${queued.run_id}`);
    await rt.cancel(queued.run_id);
  }
}
await writers.empty.close();
await writers.full.close();
const ratio = (op: Op) => times[op].full.map((f, i) => f / (times[op].empty[i] ?? 1));
console.log(`${FINISHED.toLocaleString("en")} finished runs vs an empty file (one run waiting for approval in each), ${REPEATS} alternating pairs:`);
for (const op of ops) {
  console.log(`  ${op.padEnd(15)} ${median(times[op].full).toFixed(2)} ms vs ${median(times[op].empty).toFixed(2)} ms, ratio median ${median(ratio(op)).toFixed(2)} (pairs ${spread(ratio(op))})`);
}
console.log(JSON.stringify({
  turns: TURNS + 10, resume_ms_long: Number(median(resume.big).toFixed(1)), resume_ms_short: Number(median(resume.small).toFixed(1)),
  resume_long_over_short: Number(median(resumeRatios).toFixed(2)),
  resume_after_idle_ms_long: Number(median(paced.big).toFixed(1)), resume_after_idle_ms_short: Number(median(paced.small).toFixed(1)),
  resume_after_idle_long_over_short: Number(median(pacedRatios).toFixed(2)), get_state_long_over_short: Number(median(stateRatios).toFixed(2)),
  finished_runs: FINISHED,
  ...Object.fromEntries(ops.map((op) => [`${op}_full_over_empty`, Number(median(ratio(op)).toFixed(2))])),
  ...Object.fromEntries(ops.map((op) => [`${op}_ms_full`, Number(median(times[op].full).toFixed(2))])),
}));
