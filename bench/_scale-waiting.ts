// Scale part 2: approve-and-finish latency of real WAITING_APPROVAL ops_rollback runs while the database holds
// many more waiting runs. The filler is not synthetic: the real waiting runs' rows (runs, run_events, checkpoints,
// checkpoint_blobs, checkpoint_writes, spans) are cloned in SQL with generate_series under new ids, so every
// table and index has the size 100,000 real waiting runs give it.
import type pg from "pg";
import { Runtime, type RunView } from "../src/runtime/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";
import { agentrt, CONFIG, percentile, type BenchSchema } from "./_scale-pg.js";

const MESSAGE = "Why did the payments deploy fail? Roll back if needed.";
/** Columns that hold ids: a clone gets the template's id with `_c<n>` appended, so keys stay unique. */
const ID_COLUMNS = new Set(["run_id", "thread_id", "span_id", "parent_id"]);
/** The tables a waiting run has rows in, and the column that ties a row to the template run or its thread. */
const CLONED: ReadonlyArray<[table: string, by: "run_id" | "thread_id"]> = [
  ["runs", "run_id"], ["run_events", "run_id"], ["spans", "run_id"],
  ["checkpoints", "thread_id"], ["checkpoint_blobs", "thread_id"], ["checkpoint_writes", "thread_id"],
];

/** What one approval measurement found. */
export interface ApprovalFigures {
  /** Runs in the database while the approvals were measured (all WAITING_APPROVAL but those approved). */
  runs_in_database: number;
  approvals: number;
  p50_ms: number;
  p99_ms: number;
  /** The approved runs' final statuses. */
  statuses: Record<string, number>;
  /** Seconds the SQL cloning took, and the schema's size after it. */
  fill_s?: number;
  schema_bytes?: number;
}

/** Creates `approvals` real waiting runs, fills the schema to `total` runs when asked, then approves each in turn. */
export async function measureApprovals(admin: pg.Client, schema: BenchSchema, options: { approvals: number; total: number }): Promise<ApprovalFigures> {
  const runtime = Runtime.open({ db: schema.url, config: CONFIG });
  try {
    await runtime.ready();
    const waiting: RunView[] = [];
    // One more than measured: the first approval warms the worker up.
    for (let i = 0; i < options.approvals + 1; i += 10) {
      const batch = Array.from({ length: Math.min(10, options.approvals + 1 - i) }, () => runtime.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" }));
      waiting.push(...(await Promise.all(batch)));
    }
    if (waiting.some((v) => v.status !== "WAITING_APPROVAL")) throw new Error("bench scale: an ops_rollback run did not wait for approval");
    let fill: { seconds: number; bytes: number } | undefined;
    if (options.total > waiting.length) fill = await cloneRuns(admin, schema.name, waiting, Math.ceil((options.total - waiting.length) / waiting.length));
    const count = Number((await admin.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema.name}.runs`)).rows[0]?.n ?? 0);
    const latencies = await approveInTurn(runtime, schema.url, waiting);
    const statuses: Record<string, number> = {};
    for (const v of waiting) {
      const status = (await runtime.get(v.run_id)).status;
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    return {
      runs_in_database: count, approvals: latencies.length, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), statuses,
      ...(fill === undefined ? {} : { fill_s: Number(fill.seconds.toFixed(1)), schema_bytes: fill.bytes }),
    };
  } finally {
    await runtime.close();
  }
}

/**
 * One worker process (not --once) on the schema; each run is approved with `queue` (the decision stored, the run
 * QUEUED for a worker) and followed until it rests: latency = the run's finish time − the moment approve was called.
 */
async function approveInTurn(runtime: Runtime, url: string, waiting: readonly RunView[]): Promise<number[]> {
  const worker = agentrt(["worker", "--db", url, "--concurrency", "4", "--worker-id", "bench-scale-approver"]);
  try {
    const deadline = Date.now() + 120_000;
    while (!/concurrency/.test(worker.stderr())) {
      if (Date.now() > deadline || worker.child.exitCode !== null) throw new Error(`bench scale: the approving worker did not start: ${worker.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const latencies: number[] = [];
    // The first approval is a warm-up (the worker loads ops_rollback at its first claim): not counted.
    for (const [i, view] of waiting.entries()) {
      const action = view.pending[0];
      if (action === undefined) throw new Error(`bench scale: run ${view.run_id} has no pending action`);
      const at = Date.now();
      await runtime.approve(view.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true });
      for (;;) {
        const run = await runtime.get(view.run_id);
        if (!["QUEUED", "RUNNING", "RETRYING"].includes(run.status)) break;
        if (Date.now() - at > 60_000) throw new Error(`bench scale: run ${view.run_id} still ${run.status} a minute after approval`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const finishedAt = (await runtimeInternals(runtime).runs.get(view.run_id)).finishedAt;
      if (i > 0) latencies.push((finishedAt ?? Date.now()) - at);
    }
    return latencies.sort((a, b) => a - b);
  } finally {
    worker.child.kill("SIGTERM");
    await worker.exited;
  }
}

/** Clones every template run's rows `copies` times under new ids (triggers off for the copy: no change counting). */
async function cloneRuns(admin: pg.Client, schema: string, templates: readonly RunView[], copies: number): Promise<{ seconds: number; bytes: number }> {
  const started = performance.now();
  const runIds = templates.map((t) => t.run_id);
  const threadIds = templates.map((t) => t.thread_id);
  await admin.query("BEGIN");
  try {
    await admin.query("SET LOCAL session_replication_role = replica");
    for (const [table, by] of CLONED) {
      const columns = (await admin.query<{ name: string; serial: boolean }>(
        `SELECT column_name AS name, coalesce(column_default LIKE 'nextval(%', false) OR is_identity = 'YES' AS serial
           FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`, [schema, table],
      )).rows.filter((c) => !c.serial);
      const names = columns.map((c) => c.name).join(", ");
      const values = columns.map((c) => (ID_COLUMNS.has(c.name) ? `CASE WHEN t.${c.name} IS NULL THEN NULL ELSE t.${c.name} || '_c' || g END` : `t.${c.name}`)).join(", ");
      await admin.query(
        `INSERT INTO ${schema}.${table} (${names}) SELECT ${values} FROM ${schema}.${table} t CROSS JOIN generate_series(1, $2::integer) g WHERE t.${by} = ANY($1::text[])`,
        [by === "run_id" ? runIds : threadIds, copies],
      );
    }
    await admin.query("COMMIT");
  } catch (error) {
    await admin.query("ROLLBACK");
    throw error;
  }
  await admin.query(`ANALYZE ${CLONED.map(([table]) => `${schema}.${table}`).join(", ")}`);
  const bytes = Number((await admin.query<{ b: string }>(
    "SELECT sum(pg_total_relation_size(c.oid)) AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'", [schema],
  )).rows[0]?.b ?? 0);
  return { seconds: (performance.now() - started) / 1000, bytes };
}
