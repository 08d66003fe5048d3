// `npm run bench -- scale [--runs N] [--waiting N] [--clients N]`: issue 18's scale bench, on the machine's
// PostgreSQL (AGENTRT_BENCH_PG_URL to change it), a fresh schema per measurement, dropped after.
// 1. N (2,000) queued city_weather runs, 50 ms per get_weather call, executed by 1, 2 and 4 real `agentrt worker
//    --once` processes (concurrency 50 each: see WORKER_CONCURRENCY); the same on SQLite with 1 process; and the
//    2-process figure again with the runs table's change-counter trigger disabled (is it a serialization point?).
// 2. Approve-and-finish latency of 100 real waiting ops_rollback runs among 100,000 waiting runs (the real runs'
//    rows cloned in SQL), against the same on an empty schema.
// 3. Two `agentrt serve` processes, clients creating a run on one and streaming it from the other.
// 4. What one run costs PostgreSQL (round trips, rows per table, bytes): the figures docs/scaling.md builds on.
// Durability: PostgreSQL commits with the server's synchronous_commit (printed); SQLite in WAL with
// synchronous=NORMAL; the runtime checkpoints with durability "sync" on both. Last line: one JSON object.
import { loadavg, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { measureRollbackCost, measureWeatherCost } from "./_scale-cost.js";
import { flag, openAdmin, ratio, sampleRunChangesWaits, withSchema } from "./_scale-pg.js";
import { measureCrossProcessStream, type StreamFigures } from "./_scale-stream.js";
import { measureApprovals } from "./_scale-waiting.js";
import { measureWorkers, TOOL_LATENCY_MS, type WorkerFigures } from "./_scale-workers.js";

const RUNS = flag("runs", Number(process.env.BENCH_SCALE_RUNS ?? 2000));
const WAITING = flag("waiting", 100_000);
const APPROVALS = flag("approvals", 100);
const CLIENTS = flag("clients", 200);
/** `--part N` runs only part N (1-4); all four by default. */
const PART = process.argv.includes("--part") ? flag("part", 1) : 0;
const runs = (part: number) => PART === 0 || PART === part;
/**
 * Runs in flight per worker process. A city_weather run takes ~10-15 ms of CPU and ~100+ ms of wall time (three
 * parallel 50 ms tool calls, ~50 round trips), so ~10 runs in flight saturate one event loop; 50 leaves room for
 * slow round trips, and the worker stops claiming by itself while its event loop lags (maxLagMs), so more would
 * only queue on the 10-connection pool. The same per process at 1, 2 and 4 processes: adding a process adds capacity.
 */
const WORKER_CONCURRENCY = 50;

const admin = await openAdmin();
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-scale-"));
const out = (line: string) => process.stdout.write(`${line}\n`);
const setting = async (name: string) => (await admin.query<{ s: string }>("SELECT current_setting($1) AS s", [name])).rows[0]?.s;
const figures: Record<string, unknown> = {
  bench: "scale",
  load_before: loadavg().map((n) => Number(n.toFixed(2))),
  server: { version: await setting("server_version"), synchronous_commit: await setting("synchronous_commit"), max_connections: await setting("max_connections") },
  durability: { pg: "synchronous_commit as printed; checkpoints durability sync", sqlite: "WAL, synchronous=NORMAL; checkpoints durability sync" },
};
const describe = (label: string, f: WorkerFigures) =>
  out(`  ${label.padEnd(38)} ${String(f.runs_per_s).padStart(6)} runs/s (steady ${String(f.runs_per_s_steady).padStart(6)}), claim→end p50 ${f.p50_ms} ms p99 ${f.p99_ms} ms, ` +
    `double executions ${f.double_executions}, duplicate tool spans ${f.duplicate_tool_spans}, first claims after ${f.first_claim_s.join("/")} s`);

try {
  out(`load average ${String(figures.load_before)}; PostgreSQL ${String((figures.server as { version: string }).version)}, synchronous_commit=${String((figures.server as { synchronous_commit: string }).synchronous_commit)}`);
  // The parts, each on fresh schemas.
  if (runs(1)) await workersPart();
  if (runs(2)) await approvalsPart();
  if (runs(3)) await streamPart();
  if (runs(4)) await costPart();
  figures.load_after = loadavg().map((n) => Number(n.toFixed(2)));
  out(JSON.stringify(figures));
} finally {
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}

/** 1. Workers. */
async function workersPart(): Promise<void> {
  out(`1. ${RUNS} queued city_weather runs (3 get_weather calls of ${TOOL_LATENCY_MS} ms each) through agentrt worker --once processes, concurrency ${WORKER_CONCURRENCY} each:`);
  const pg: Record<number, WorkerFigures> = {};
  const contention: Record<string, unknown> = {};
  for (const processes of [1, 2, 4]) {
    pg[processes] = await withSchema(admin, `w${processes}`, async (schema) => {
      let sampler: ReturnType<typeof sampleRunChangesWaits> | undefined;
      const f = await measureWorkers({
        db: schema.url, processes, concurrency: WORKER_CONCURRENCY, runs: RUNS,
        beforeWorkers: async () => void (sampler = sampleRunChangesWaits(admin, schema.name)),
      });
      if (sampler !== undefined) contention[`pg_${processes}`] = await sampler.stop();
      return f;
    });
    describe(`PostgreSQL, ${processes} process${processes === 1 ? "" : "es"}:`, pg[processes]);
  }
  const noTrigger = await withSchema(admin, "w2_notrigger", async (schema) => {
    let sampler: ReturnType<typeof sampleRunChangesWaits> | undefined;
    const f = await measureWorkers({
      db: schema.url, processes: 2, concurrency: WORKER_CONCURRENCY, runs: RUNS,
      beforeWorkers: async () => {
        await admin.query(`ALTER TABLE ${schema.name}.runs DISABLE TRIGGER runs_changed`);
        sampler = sampleRunChangesWaits(admin, schema.name);
      },
    });
    if (sampler !== undefined) contention.pg_2_without_trigger = await sampler.stop();
    return f;
  });
  describe("PostgreSQL, 2 processes, no runs_changed:", noTrigger);
  const sqlite = await measureWorkers({ db: join(dir, "scale.db"), processes: 1, concurrency: WORKER_CONCURRENCY, runs: RUNS });
  describe("SQLite, 1 process:", sqlite);
  const [one, two, four] = [pg[1]!, pg[2]!, pg[4]!];
  const scale2 = ratio(two.runs_per_s_steady, one.runs_per_s_steady);
  const scale4 = ratio(four.runs_per_s_steady, one.runs_per_s_steady);
  out(`  scale_2_over_1 ${scale2} (target >= 1.7), scale_4_over_1 ${scale4} (steady rates); 2 processes without/with the trigger ${ratio(noTrigger.runs_per_s_steady, two.runs_per_s_steady)}`);
  out(`  backends queued on run_changes' row lock (sampled every 50 ms): ${JSON.stringify(contention)}`);
  Object.assign(figures, {
    runs: RUNS, worker_concurrency: WORKER_CONCURRENCY, tool_latency_ms: TOOL_LATENCY_MS,
    pg_1: one, pg_2: two, pg_4: four, pg_2_without_run_changes_trigger: noTrigger, sqlite_1: sqlite,
    runs_per_s: { pg_1: one.runs_per_s_steady, pg_2: two.runs_per_s_steady, pg_4: four.runs_per_s_steady, sqlite_1: sqlite.runs_per_s_steady },
    scale_2_over_1: scale2, scale_4_over_1: scale4,
    pg_1_over_sqlite_1: ratio(one.runs_per_s_steady, sqlite.runs_per_s_steady),
    without_trigger_over_with_2: ratio(noTrigger.runs_per_s_steady, two.runs_per_s_steady),
    run_changes_lock_queue: contention,
    double_executions: one.double_executions + two.double_executions + four.double_executions + noTrigger.double_executions + sqlite.double_executions,
    load_after_workers: loadavg().map((n) => Number(n.toFixed(2))),
  });
}

/** 2. Approvals among many waiting runs. */
async function approvalsPart(): Promise<void> {
  out(`2. approve-and-finish latency of ${APPROVALS} waiting ops_rollback runs (approve --queue, one agentrt worker process, one at a time):`);
  const empty = await withSchema(admin, "approve_empty", (schema) => measureApprovals(admin, schema, { approvals: APPROVALS, total: 0 }));
  out(`  empty schema (${empty.runs_in_database} runs): p50 ${empty.p50_ms} ms, p99 ${empty.p99_ms} ms, ${JSON.stringify(empty.statuses)}`);
  const full = await withSchema(admin, "approve_full", (schema) => measureApprovals(admin, schema, { approvals: APPROVALS, total: WAITING }));
  out(`  ${full.runs_in_database} waiting runs (the real runs' rows cloned in SQL with generate_series: runs, run_events, spans, checkpoints, ` +
    `checkpoint_blobs, checkpoint_writes; ${full.fill_s} s, schema ${Math.round((full.schema_bytes ?? 0) / 2 ** 20)} MiB): p50 ${full.p50_ms} ms, p99 ${full.p99_ms} ms, ${JSON.stringify(full.statuses)}`);
  const approvalRatio = { p50: ratio(full.p50_ms, empty.p50_ms), p99: ratio(full.p99_ms, empty.p99_ms) };
  out(`  full over empty: p50 ${approvalRatio.p50}x, p99 ${approvalRatio.p99}x (target within 1.2x)`);
  Object.assign(figures, { approvals_empty: empty, approvals_full: full, approval_full_over_empty: approvalRatio, waiting_rows: "real waiting runs' rows cloned in SQL (generate_series)" });
}

/** 3. Streaming across serve processes. */
async function streamPart(): Promise<void> {
  out(`3. ${CLIENTS} SDK clients, each creating a city_weather run on serve A and streaming it from serve B (joinStream, Last-Event-ID -1):`);
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

/** 4. Cost per run. */
async function costPart(): Promise<void> {
  out("4. what one run costs PostgreSQL (in-process Runtime, no tool latency; sim_* tables left out):");
  const weather = await measureWeatherCost(admin, 200);
  const rollback = await measureRollbackCost(admin, 100);
  for (const [label, c] of [["city_weather, to SUCCEEDED", weather], ["ops_rollback, to WAITING_APPROVAL", rollback.to_waiting], ["ops_rollback, approve to SUCCEEDED", rollback.approve_to_end]] as const) {
    out(`  ${label.padEnd(36)} ${c.round_trips} round trips, ${c.rows_written} rows written, ${c.bytes} bytes, CPU ${c.cpu_ms_client} ms here + ${c.cpu_ms_server} ms in PostgreSQL (${c.runs} runs): ` +
      Object.entries(c.tables).map(([t, v]) => `${t} +${v.inserted}/~${v.updated}/-${v.deleted} ${v.bytes} B`).join(", "));
  }
  Object.assign(figures, { cost_city_weather: weather, cost_ops_rollback_to_waiting: rollback.to_waiting, cost_ops_rollback_approve_to_end: rollback.approve_to_end });
}
