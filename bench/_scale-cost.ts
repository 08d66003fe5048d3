// Scale part 4: what one run costs PostgreSQL, for docs/scaling.md's capacity model — round trips (counted at the
// driver), rows inserted/updated/deleted per table (pg_stat_user_tables, flushed by closing the runtime's
// connections) and bytes (pg_total_relation_size deltas), for N city_weather runs and N ops_rollback runs (waiting
// for approval, then approved and finished), each on a fresh schema, measured in-process through Runtime.
import { readFileSync } from "node:fs";
import type pg from "pg";
import { PostgresDatabase } from "../src/db/postgres/index.js";
import { Runtime } from "../src/runtime/index.js";
import { runtimeInternals } from "../src/runtime/internals.js";
import { countRoundTrips, roundTripsPer } from "./_pg-round-trips.js";
import { CONFIG, withSchema } from "./_scale-pg.js";

const WEATHER = "Weather for Beijing, Shanghai and Shenzhen";
const ROLLBACK = "Why did the payments deploy fail? Roll back if needed.";

/** One table's change over the measured runs, per run. */
interface TableCost {
  inserted: number;
  updated: number;
  deleted: number;
  bytes: number;
}

/** What one run (or one phase of it) costs: totals over agentrt's tables, and per table. */
export interface RunCost {
  runs: number;
  round_trips: number;
  rows_written: number;
  bytes: number;
  /** CPU ms per run of this process (runtime, graph, scripted model) and of its PostgreSQL backends (from /proc). */
  cpu_ms_client: number;
  cpu_ms_server: number;
  tables: Record<string, TableCost>;
}

/** Round trips, this process's CPU ms and its backends' CPU ms over a phase. */
interface PhaseCost {
  roundTrips: number;
  cpuClient: number;
  cpuServer: number;
}

/** CPU ms a PostgreSQL backend has used (utime + stime from /proc; the server runs on this machine). */
function backendCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0; // gone, or another machine's server: not counted
  }
}

/** The pids behind every connection of the runtime's pool (all checked out at once so each answers). */
async function poolPids(runtime: Runtime): Promise<number[]> {
  const db = runtimeInternals(runtime).storage.db;
  if (!(db instanceof PostgresDatabase)) return [];
  const clients = await Promise.all(Array.from({ length: db.pool.totalCount || 1 }, () => db.pool.connect()));
  try {
    return await Promise.all(clients.map(async (c) => Number((await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid)));
  } finally {
    for (const c of clients) c.release();
  }
}

type Snapshot = Map<string, { ins: number; upd: number; del: number; bytes: number }>;

async function snapshot(admin: pg.Client, schema: string): Promise<Snapshot> {
  // The runtime's backends flush their counters as they exit; give the last one a moment.
  await new Promise((resolve) => setTimeout(resolve, 700));
  const rows = (await admin.query<{ t: string; ins: string; upd: string; del: string; bytes: string }>(
    `SELECT relname AS t, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_del AS del, pg_total_relation_size(relid) AS bytes
       FROM pg_stat_user_tables WHERE schemaname = $1`, [schema],
  )).rows;
  return new Map(rows.map((r) => [r.t, { ins: Number(r.ins), upd: Number(r.upd), del: Number(r.del), bytes: Number(r.bytes) }]));
}

/** The change from `before` to `after` per run; the simulated world's sim_* tables are left out (not agentrt's). */
function costOf(before: Snapshot, after: Snapshot, runs: number, phase: PhaseCost): RunCost {
  const tables: Record<string, TableCost> = {};
  const per = (n: number) => Number((n / runs).toFixed(2));
  for (const [table, a] of [...after.entries()].sort(([x], [y]) => x.localeCompare(y))) {
    if (table.startsWith("sim_")) continue;
    const b = before.get(table) ?? { ins: 0, upd: 0, del: 0, bytes: 0 };
    const cost = { inserted: per(a.ins - b.ins), updated: per(a.upd - b.upd), deleted: per(a.del - b.del), bytes: Math.round((a.bytes - b.bytes) / runs) };
    if (cost.inserted + cost.updated + cost.deleted + cost.bytes !== 0) tables[table] = cost;
  }
  const all = Object.values(tables);
  return {
    runs, round_trips: phase.roundTrips,
    cpu_ms_client: Number((phase.cpuClient / runs).toFixed(2)), cpu_ms_server: Number((phase.cpuServer / runs).toFixed(2)),
    rows_written: Number(all.reduce((s, t) => s + t.inserted + t.updated + t.deleted, 0).toFixed(1)),
    bytes: all.reduce((s, t) => s + t.bytes, 0), tables,
  };
}

/** Opens a runtime on the schema, runs `work` (round trips counted per run), closes it so the counters flush. */
async function phase(url: string, runs: number, work: (rt: Runtime, i: number) => Promise<void>): Promise<PhaseCost> {
  const runtime = Runtime.open({ db: url, config: CONFIG });
  try {
    await runtime.ready();
    const before = new Map((await poolPids(runtime)).map((pid) => [pid, backendCpuMs(pid)]));
    const cpu = process.cpuUsage();
    const roundTrips = await roundTripsPer(runs, (i) => work(runtime, i));
    const used = process.cpuUsage(cpu);
    const cpuServer = (await poolPids(runtime)).reduce((sum, pid) => sum + backendCpuMs(pid) - (before.get(pid) ?? 0), 0);
    return { roundTrips, cpuClient: (used.user + used.system) / 1000, cpuServer };
  } finally {
    await runtime.close();
  }
}

/** city_weather: N runs to SUCCEEDED (no tool latency: the cost, not the time, is measured). */
export async function measureWeatherCost(admin: pg.Client, runs: number): Promise<RunCost> {
  countRoundTrips();
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
  return withSchema(admin, "cost_weather", async (schema) => {
    const run = async (rt: Runtime) => {
      if ((await rt.submit({ graph: "city_weather", message: WEATHER })).status !== "SUCCEEDED") throw new Error("bench scale: city_weather did not succeed");
    };
    await phase(schema.url, 3, run); // warm-up: migrations, the world's seed, first checkpoints
    const before = await snapshot(admin, schema.name);
    const trips = await phase(schema.url, runs, run);
    return costOf(before, await snapshot(admin, schema.name), runs, trips);
  });
}

/** ops_rollback: N runs to WAITING_APPROVAL (the cost of a waiting run), then each approved and finished here. */
export async function measureRollbackCost(admin: pg.Client, runs: number): Promise<{ to_waiting: RunCost; approve_to_end: RunCost }> {
  countRoundTrips();
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
  return withSchema(admin, "cost_rollback", async (schema) => {
    const waiting: Array<{ runId: string; actionId: string; argsHash: string }> = [];
    const submit = async (rt: Runtime) => {
      const view = await rt.submit({ graph: "ops_rollback", message: ROLLBACK, user: "alice" });
      const action = view.pending[0];
      if (view.status !== "WAITING_APPROVAL" || action === undefined) throw new Error("bench scale: ops_rollback did not wait");
      waiting.push({ runId: view.run_id, actionId: action.action_id, argsHash: action.args_hash });
    };
    await phase(schema.url, 3, submit);
    waiting.splice(0);
    const start = await snapshot(admin, schema.name);
    const submitTrips = await phase(schema.url, runs, submit);
    const parked = await snapshot(admin, schema.name);
    const approveTrips = await phase(schema.url, runs, async (rt, i) => {
      const w = waiting[i];
      if (w === undefined) throw new Error("bench scale: no waiting run to approve");
      if ((await rt.approve(w.runId, { actionId: w.actionId, argsHash: w.argsHash })).status !== "SUCCEEDED") throw new Error("bench scale: ops_rollback did not succeed");
    });
    return { to_waiting: costOf(start, parked, runs, submitTrips), approve_to_end: costOf(parked, await snapshot(admin, schema.name), runs, approveTrips) };
  });
}
