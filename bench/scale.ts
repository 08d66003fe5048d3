// `npm run bench -- scale [--quick] [--part N] [--runs N] [--waiting N] [--clients N]`: issue 36's scale bench, on
// the machine's PostgreSQL (AGENTRT_BENCH_PG_URL to change it). Parts 1-4 run in their own database (agentrt_bench,
// created when missing) so its statistics and lock waits are agentrt's alone; a fresh schema per measurement.
// 1. Latency-bound (the figure that says whether workers scale): runs of bench/_latency-agent.ts (~1 s model turns,
//    200 ms sleeping tools, streamed) through 1, 2 and 4 `agentrt worker --once` processes at the same concurrency
//    each; runs/s, and per run: PostgreSQL CPU ms (/proc), commits, WAL bytes, round trips, lock-wait samples.
// 2. Claim latency with 0, 10k and 50k leased runs.  3. Failover: a worker SIGKILLed mid-run, its runs resumed.
// 4. This machine's ceiling for agentrt's per-run statement mix (pgbench) and agentrt's fraction of it.
// 5. CPU-bound (issue 18's part 1, kept as it was): city_weather runs, 50 ms tools, pure runtime overhead.
// 6-8. Issue 18's approvals among 100k waiting runs, streaming across serve processes, cost per run.
// `--quick` (or BENCH_QUICK=1): small sizes, parts 1-5 only. Last line: one JSON object.
import { loadavg, tmpdir } from "node:os";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { measureClaims, type ClaimFigures } from "./_scale-claims.js";
import { measureRollbackCost, measureWeatherCost } from "./_scale-cost.js";
import { measureFailover } from "./_scale-failover.js";
import { measureLatencyWorkers, type LatencyFigures } from "./_scale-latency.js";
import { measurePgbench } from "./_scale-pgbench.js";
import { flag, freshSchema, openAdmin, ratio, SERVER, withSchema } from "./_scale-pg.js";
import { measureCrossProcessStream, type StreamFigures } from "./_scale-stream.js";
import { measureApprovals } from "./_scale-waiting.js";
import { measureWorkers, TOOL_LATENCY_MS, type WorkerFigures } from "./_scale-workers.js";

const QUICK = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1";
const RUNS = flag("runs", Number(process.env.BENCH_SCALE_RUNS ?? (QUICK ? 200 : 2000)));
const WAITING = flag("waiting", 100_000);
const APPROVALS = flag("approvals", 100);
const CLIENTS = flag("clients", 200);
/** Latency-bound: runs in flight per worker process, and runs queued per slot (each slot runs that many in turn). */
const LATENCY_CONCURRENCY = flag("latency-concurrency", QUICK ? 10 : 50);
const ROUNDS = QUICK ? 2 : 4;
const CLAIMS = QUICK ? 30 : 200;
const PGBENCH_SECONDS = QUICK ? 5 : 20;
/** `--part N` runs only part N (1-8); all (1-5 with --quick) by default. */
const PART = process.argv.includes("--part") ? flag("part", 1) : 0;
const runs = (part: number) => (PART === 0 ? !QUICK || part <= 5 : PART === part);
/**
 * CPU-bound runs in flight per worker process. A city_weather run takes ~10-15 ms of CPU and ~100+ ms of wall time (three
 * parallel 50 ms tool calls, ~50 round trips), so ~10 runs in flight saturate one event loop; 50 leaves room for
 * slow round trips, and the worker stops claiming by itself while its event loop lags (maxLagMs), so more would
 * only queue on the 10-connection pool. The same per process at 1, 2 and 4 processes: adding a process adds capacity.
 */
const WORKER_CONCURRENCY = 50;

const admin = await openAdmin();
const BENCH_DB = "agentrt_bench";
if ((await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [BENCH_DB])).rowCount === 0) await admin.query(`CREATE DATABASE ${BENCH_DB}`);
const benchServer = new URL(SERVER);
benchServer.pathname = `/${BENCH_DB}`;
const benchAdmin = await openAdmin(benchServer.toString());
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-scale-"));
const out = (line: string) => process.stdout.write(`${line}\n`);
const setting = async (name: string) => (await admin.query<{ s: string }>("SELECT current_setting($1) AS s", [name])).rows[0]?.s;
const figures: Record<string, unknown> = {
  bench: "scale",
  quick: QUICK,
  load_before: loadavg().map((n) => Number(n.toFixed(2))),
  server: { version: await setting("server_version"), synchronous_commit: await setting("synchronous_commit"), max_connections: await setting("max_connections") },
  durability: { pg: "synchronous_commit as printed; checkpoints durability sync", sqlite: "WAL, synchronous=NORMAL; checkpoints durability sync" },
};
const describe = (label: string, f: WorkerFigures) =>
  out(`  ${label.padEnd(38)} ${String(f.runs_per_s).padStart(6)} runs/s (steady ${String(f.runs_per_s_steady).padStart(6)}), claim→end p50 ${f.p50_ms} ms p99 ${f.p99_ms} ms, ` +
    `double executions ${f.double_executions}, duplicate tool spans ${f.duplicate_tool_spans}, first claims after ${f.first_claim_s.join("/")} s`);

/** Runs `work` on a fresh schema of the bench database (its own scratch directory too), dropped after. */
async function inBenchDb<T>(label: string, work: (url: string, scratch: string) => Promise<T>): Promise<T> {
  const { name } = freshSchema(label);
  const url = new URL(benchServer);
  url.searchParams.set("schema", name);
  const scratch = join(dir, name);
  mkdirSync(scratch);
  try {
    return await work(url.toString(), scratch);
  } finally {
    await benchAdmin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  }
}

try {
  out(`load average ${String(figures.load_before)}; PostgreSQL ${String((figures.server as { version: string }).version)}, synchronous_commit=${String((figures.server as { synchronous_commit: string }).synchronous_commit)}${QUICK ? "; QUICK sizes" : ""}`);
  // The parts, each on fresh schemas.
  const latency = runs(1) || runs(4) ? await latencyPart() : undefined;
  if (runs(2)) await claimsPart();
  if (runs(3)) await failoverPart();
  if (runs(4) && latency !== undefined) await pgbenchPart(latency);
  if (runs(5)) await workersPart();
  if (runs(6)) await approvalsPart();
  if (runs(7)) await streamPart();
  if (runs(8)) await costPart();
  figures.load_after = loadavg().map((n) => Number(n.toFixed(2)));
  out(JSON.stringify(figures));
} finally {
  await admin.end();
  await benchAdmin.end();
  rmSync(dir, { recursive: true, force: true });
}

/** 1. Latency-bound workers. */
async function latencyPart(): Promise<Record<number, LatencyFigures>> {
  out(`1. LATENCY-BOUND: latency_agent runs (3 model turns of ~1 s, 2 x 2 sleeping 200 ms tool calls, streamed) through 1, 2 and 4 ` +
    `agentrt worker --once processes, concurrency ${LATENCY_CONCURRENCY} each, ${ROUNDS} runs queued per slot:`);
  const byProcesses: Record<number, LatencyFigures> = {};
  for (const processes of [1, 2, 4]) {
    const f = await inBenchDb(`lat${processes}`, (url, scratch) =>
      measureLatencyWorkers(benchAdmin, url, scratch, { processes, concurrency: LATENCY_CONCURRENCY, runs: processes * LATENCY_CONCURRENCY * ROUNDS }));
    byProcesses[processes] = f;
    out(`  ${processes} process${processes === 1 ? ": " : "es:"} ${f.runs_per_s_steady} runs/s steady (${f.runs_per_s} overall), run p50 ${f.run_p50_ms} ms p99 ${f.run_p99_ms} ms; ` +
      `per run: PostgreSQL CPU ${f.pg.cpu_ms_per_run ?? "n/a"} ms, ${f.pg.commits_per_run} commits, ${f.pg.wal_bytes_per_run} WAL bytes, ${f.round_trips_per_run} round trips, ` +
      `${f.lock_wait_ms_per_run} backend-ms waiting on locks; double executions ${f.double_executions}, repeated tool calls ${f.repeated_tool_calls}, ` +
      `runs claimed again ${f.runs_claimed_again} ${JSON.stringify(f.reclaim_reasons)}`);
  }
  const [one, two, four] = [byProcesses[1]!, byProcesses[2]!, byProcesses[4]!];
  const scale2 = ratio(two.runs_per_s_steady, one.runs_per_s_steady);
  const scale4 = ratio(four.runs_per_s_steady, one.runs_per_s_steady);
  const ideal = (LATENCY_CONCURRENCY / 3.4).toFixed(1);
  out(`  scale_2_over_1 ${scale2}, scale_4_over_1 ${scale4} (ideal 2 and 4; one process's ideal ~${ideal} runs/s: concurrency / ~3.4 s a run)`);
  Object.assign(figures, {
    latency_bound: { concurrency: LATENCY_CONCURRENCY, rounds: ROUNDS, pg_1: one, pg_2: two, pg_4: four },
    scale_2_over_1: scale2, scale_4_over_1: scale4,
    pg_round_trips_per_run: one.round_trips_per_run,
    pg_cpu_ms_per_run: one.pg.cpu_ms_per_run, pg_commits_per_run: one.pg.commits_per_run, pg_wal_bytes_per_run: one.pg.wal_bytes_per_run,
    lock_wait_ms_per_run: { pg_1: one.lock_wait_ms_per_run, pg_2: two.lock_wait_ms_per_run, pg_4: four.lock_wait_ms_per_run },
    double_executions: one.double_executions + two.double_executions + four.double_executions,
    repeated_side_effects: one.repeated_tool_calls + two.repeated_tool_calls + four.repeated_tool_calls,
    statement_mix_per_run: one.statement_kinds_per_run,
  });
  return byProcesses;
}

/** 2. Claim latency among leased runs. */
async function claimsPart(): Promise<void> {
  out(`2. claim latency (create, then a timed claimNext; ${CLAIMS} claims) with 0, 10k and 50k runs holding a lease (rows inserted directly):`);
  const levels: ClaimFigures[] = [];
  for (const leased of [0, 10_000, 50_000]) {
    const f = await inBenchDb(`claims${leased}`, (url) => measureClaims(url, leased, CLAIMS));
    levels.push(f);
    out(`  ${String(leased).padStart(6)} leased: p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms, mean ${f.mean_ms} ms`);
  }
  const over = ratio(levels[2]!.p50_ms, levels[0]!.p50_ms);
  out(`  claim_latency_50k_over_0 ${over} (p50)`);
  Object.assign(figures, { claim_latency: levels, claim_latency_50k_over_0: over });
}

/** 3. Failover. */
async function failoverPart(): Promise<void> {
  const concurrency = QUICK ? 5 : 20;
  out(`3. failover: a latency_agent worker (lease 60 s) executing ${concurrency} runs is SIGKILLed once a second, idle worker is up:`);
  const f = await inBenchDb("failover", (url, scratch) => measureFailover(benchAdmin, url, scratch, concurrency));
  out(`  ${f.runs_taken_over} runs taken over, the last ${f.failover_s} s after the kill (p50 ${f.failover_p50_s} s; the lease would have run ${f.lease_ms / 1000} s); ` +
    `double executions ${f.double_executions}; tool calls run twice ${f.repeated_tool_calls} (in flight at the kill, read-only: not in the ledger)`);
  Object.assign(figures, { failover: f, failover_s: f.failover_s, double_executions: Number(figures.double_executions ?? 0) + f.double_executions });
}

/** 4. The machine's ceiling for the statement mix. */
async function pgbenchPart(latency: Record<number, LatencyFigures>): Promise<void> {
  const one = latency[1]!;
  const kinds = one.statement_kinds_per_run;
  out(`4. pgbench replaying one run's statement mix (${JSON.stringify(kinds)}, ${one.pg.wal_bytes_per_run} WAL bytes) with 8 clients for ${PGBENCH_SECONDS} s:`);
  const result = await measurePgbench(benchAdmin, benchServer.toString(), dir, kinds, one.pg.wal_bytes_per_run, { clients: 8, seconds: PGBENCH_SECONDS });
  const best = Math.max(...Object.values(latency).map((f) => f.runs_per_s_steady));
  const fraction = "error" in result ? null : ratio(best, result.runs_per_s);
  out("error" in result ? `  ${result.error}` : `  ceiling ${result.runs_per_s} runs/s; agentrt's best latency-bound rate ${best} runs/s is ${fraction} of it`);
  Object.assign(figures, { pgbench: result, pgbench_fraction: fraction });
}

/** 5. CPU-bound workers (issue 18's part 1). */
async function workersPart(): Promise<void> {
  out(`5. CPU-BOUND: ${RUNS} queued city_weather runs (3 get_weather calls of ${TOOL_LATENCY_MS} ms each) through agentrt worker --once processes, concurrency ${WORKER_CONCURRENCY} each:`);
  const pg: Record<number, WorkerFigures> = {};
  for (const processes of [1, 2, 4]) {
    pg[processes] = await withSchema(admin, `w${processes}`, (schema) => measureWorkers({ db: schema.url, processes, concurrency: WORKER_CONCURRENCY, runs: RUNS }));
    describe(`PostgreSQL, ${processes} process${processes === 1 ? "" : "es"}:`, pg[processes]);
  }
  // (Issue 18's variant without the runs_changed trigger is gone with the trigger: runs V5 dropped run_changes.)
  const sqlite = await measureWorkers({ db: join(dir, "scale.db"), processes: 1, concurrency: WORKER_CONCURRENCY, runs: RUNS });
  describe("SQLite, 1 process:", sqlite);
  const [one, two, four] = [pg[1]!, pg[2]!, pg[4]!];
  const scale2 = ratio(two.runs_per_s_steady, one.runs_per_s_steady);
  const scale4 = ratio(four.runs_per_s_steady, one.runs_per_s_steady);
  out(`  CPU-bound scale_2_over_1 ${scale2}, scale_4_over_1 ${scale4} (steady rates)`);
  Object.assign(figures, {
    runs: RUNS, worker_concurrency: WORKER_CONCURRENCY, tool_latency_ms: TOOL_LATENCY_MS,
    pg_1: one, pg_2: two, pg_4: four, sqlite_1: sqlite,
    runs_per_s: { pg_1: one.runs_per_s_steady, pg_2: two.runs_per_s_steady, pg_4: four.runs_per_s_steady, sqlite_1: sqlite.runs_per_s_steady },
    cpu_bound_scale_2_over_1: scale2, cpu_bound_scale_4_over_1: scale4,
    pg_1_over_sqlite_1: ratio(one.runs_per_s_steady, sqlite.runs_per_s_steady),
    cpu_bound_double_executions: one.double_executions + two.double_executions + four.double_executions + sqlite.double_executions,
    load_after_workers: loadavg().map((n) => Number(n.toFixed(2))),
  });
}

/** 6. Approvals among many waiting runs. */
async function approvalsPart(): Promise<void> {
  out(`6. approve-and-finish latency of ${APPROVALS} waiting ops_rollback runs (approve --queue, one agentrt worker process, one at a time):`);
  const empty = await withSchema(admin, "approve_empty", (schema) => measureApprovals(admin, schema, { approvals: APPROVALS, total: 0 }));
  out(`  empty schema (${empty.runs_in_database} runs): p50 ${empty.p50_ms} ms, p99 ${empty.p99_ms} ms, ${JSON.stringify(empty.statuses)}`);
  const full = await withSchema(admin, "approve_full", (schema) => measureApprovals(admin, schema, { approvals: APPROVALS, total: WAITING }));
  out(`  ${full.runs_in_database} waiting runs (the real runs' rows cloned in SQL with generate_series: runs, run_events, spans, checkpoints, ` +
    `checkpoint_blobs, checkpoint_writes; ${full.fill_s} s, schema ${Math.round((full.schema_bytes ?? 0) / 2 ** 20)} MiB): p50 ${full.p50_ms} ms, p99 ${full.p99_ms} ms, ${JSON.stringify(full.statuses)}`);
  const approvalRatio = { p50: ratio(full.p50_ms, empty.p50_ms), p99: ratio(full.p99_ms, empty.p99_ms) };
  out(`  full over empty: p50 ${approvalRatio.p50}x, p99 ${approvalRatio.p99}x (target within 1.2x)`);
  Object.assign(figures, { approvals_empty: empty, approvals_full: full, approval_full_over_empty: approvalRatio, waiting_rows: "real waiting runs' rows cloned in SQL (generate_series)" });
}

/** 7. Streaming across serve processes. */
async function streamPart(): Promise<void> {
  out(`7. ${CLIENTS} SDK clients, each creating a city_weather run on serve A and streaming it from serve B (joinStream, Last-Event-ID -1):`);
  let stream: StreamFigures | { error: string };
  try {
    stream = await withSchema(admin, "stream", (schema) => measureCrossProcessStream(schema, CLIENTS));
  } catch (error) {
    stream = { error: String(error) };
  }
  const verdict = "error" in stream ? `unsupported: ${stream.error}`
    : stream.complete_in_order === stream.clients ? "ok"
      : `unsupported: ${stream.clients - stream.complete_in_order} of ${stream.clients} streams incomplete or out of order ` +
        `(${stream.chunks_lost} chunks lost, ${stream.chunks_without_id} received without an id: serve B has only the run's final values)`;
  out(`  ${verdict}; ${JSON.stringify(stream)}`);
  Object.assign(figures, { cross_process_stream: verdict, cross_process_stream_figures: stream });
}

/** 8. Cost per run. */
async function costPart(): Promise<void> {
  out("8. what one run costs PostgreSQL (in-process Runtime, no tool latency; sim_* tables left out):");
  const weather = await measureWeatherCost(admin, 200);
  const rollback = await measureRollbackCost(admin, 100);
  for (const [label, c] of [["city_weather, to SUCCEEDED", weather], ["ops_rollback, to WAITING_APPROVAL", rollback.to_waiting], ["ops_rollback, approve to SUCCEEDED", rollback.approve_to_end]] as const) {
    out(`  ${label.padEnd(36)} ${c.round_trips} round trips, ${c.rows_written} rows written, ${c.bytes} bytes, CPU ${c.cpu_ms_client} ms here + ${c.cpu_ms_server} ms in PostgreSQL (${c.runs} runs): ` +
      Object.entries(c.tables).map(([t, v]) => `${t} +${v.inserted}/~${v.updated}/-${v.deleted} ${v.bytes} B`).join(", "));
  }
  Object.assign(figures, { cost_city_weather: weather, cost_ops_rollback_to_waiting: rollback.to_waiting, cost_ops_rollback_approve_to_end: rollback.approve_to_end });
}
