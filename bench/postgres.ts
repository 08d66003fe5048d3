// `npm run bench -- postgres`: agentrt's PostgresSaver vs the official @langchain/langgraph-checkpoint-postgres
// saver (both on the same server, each in a fresh schema) vs agentrt's SqliteSaver (a file in a temp dir),
// measured in interleaved rounds in one run; plus round trips per op on PostgreSQL, counted at the driver.
// Durability differs and is printed: both PostgreSQL savers commit each put/putWrites with the server's
// synchronous_commit (on = the WAL is flushed to disk before COMMIT returns); the SqliteSaver commits each
// (durability "commit") in WAL with synchronous=NORMAL (no fsync per commit; a power cut can lose the last ones).
// Server: AGENTRT_BENCH_PG_URL, else the machine's (postgres://postgres@127.0.0.1:5432/test).
// Last line: one JSON object with every figure.
import { randomBytes } from "node:crypto";
import { loadavg, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver as OfficialPostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { RunnableConfig } from "@langchain/core/runnables";
import pg from "pg";
import { PostgresSaver, SqliteSaver } from "../checkpointers/index.js";
import { PostgresRunStore, Scheduler } from "../src/runs/index.js";
import { Runtime } from "../src/runtime/index.js";
import { measureOps } from "./_checkpointer-ops.js";
import { countRoundTrips, roundTripsPer, roundTripsWithBreakdown } from "./_pg-round-trips.js";

const OPS = Number(process.env.BENCH_OPS ?? 300);
const SERVER = process.env.AGENTRT_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** city_weather runs per side and round through Runtime, and the rounds (BENCH_RUNTIME_RUNS, BENCH_RUNTIME_ROUNDS). */
const RUNTIME_RUNS = Number(process.env.BENCH_RUNTIME_RUNS ?? 40);
const RUNTIME_ROUNDS = Number(process.env.BENCH_RUNTIME_ROUNDS ?? 3);
const CONFIG = fileURLToPath(new URL("../langgraph.json", import.meta.url));
/** The same request as the runs bench (bench/runs.ts): two model turns around three get_weather calls. */
const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";

type Name = "pg" | "official_pg" | "sqlite";
const suffix = randomBytes(4).toString("hex");
const schemas = { pg: `bench_pg_ours_${suffix}`, official_pg: `bench_pg_official_${suffix}`, runtime: `bench_pg_runtime_${suffix}` };
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-postgres-"));
const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));
const ratio = (a: number, b: number) => Number((a / b).toPrecision(3));

countRoundTrips();
const admin = new pg.Client({ connectionString: SERVER });
await admin.connect();
const serverSettings = {
  synchronous_commit: (await admin.query<{ s: string }>("SELECT current_setting('synchronous_commit') AS s")).rows[0]?.s,
  version: (await admin.query<{ s: string }>("SELECT current_setting('server_version') AS s")).rows[0]?.s,
};

const schemaUrl = (schema: string) => {
  const url = new URL(SERVER);
  url.searchParams.set("schema", schema);
  return url.toString();
};

/** Round trips per put, putWrites, getTuple (latest) and a 10-checkpoint list on one PostgreSQL saver. */
async function roundTrips(saver: BaseCheckpointSaver, thread: string) {
  const meta = { source: "loop" as const, step: 0, parents: {} };
  let config: RunnableConfig = { configurable: { thread_id: thread, checkpoint_ns: "" } };
  const changed = { messages: 1, counter: 1, "branch:to:agent": 1 };
  const put = await roundTripsPer(10, async (i) => {
    const versions = { __start__: 1, messages: i + 1, counter: i + 1, "branch:to:agent": i + 1, context: 1 };
    const values = { __start__: {}, messages: [{ role: "user", content: `step ${i}` }], counter: i, "branch:to:agent": null, context: { user: "ann" } };
    const newVersions = i === 0 ? versions : { ...changed, messages: i + 1, counter: i + 1, "branch:to:agent": i + 1 };
    config = await saver.put(config, { v: 4, id: uuid6(i), ts: new Date().toISOString(), channel_values: values, channel_versions: versions, versions_seen: {} }, meta, newVersions);
  });
  const putWrites = await roundTripsPer(10, (i) => saver.putWrites(config, [["messages", [{ role: "ai", content: `w${i}` }]], ["counter", i]], `task-${i}`));
  const getTuple = await roundTripsPer(10, () => saver.getTuple({ configurable: { thread_id: thread } }));
  const list = await roundTripsPer(5, async () => {
    for await (const _ of saver.list({ configurable: { thread_id: thread } })) void _;
  });
  return { put, putWrites, getTuple, list10: list };
}

/** Runs/s of sequential city_weather runs through Runtime on PostgreSQL and on SQLite, and the PG run's round trips. */
async function runtimeRunComparison(): Promise<Record<string, unknown>> {
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
  const sides = {
    pg: Runtime.open({ db: schemaUrl(schemas.runtime), config: CONFIG }),
    sqlite: Runtime.open({ db: join(dir, "runtime.db"), config: CONFIG }),
  };
  try {
    await sides.pg.ready();
    await sides.sqlite.ready();
    const run = async (side: Runtime) => {
      const view = await side.submit({ graph: "city_weather", message: MESSAGE });
      if (view.status !== "SUCCEEDED") throw new Error(`bench: city_weather ended ${view.status}`);
    };
    for (let i = 0; i < 5; i++) for (const side of Object.values(sides)) await run(side);
    const trips = await roundTripsWithBreakdown(() => run(sides.pg));
    const ms = { pg: [] as number[], sqlite: [] as number[] };
    // Interleaved rounds: a burst of load on the shared machine hits both sides alike.
    for (let r = 0; r < RUNTIME_ROUNDS; r++) {
      for (const name of ["pg", "sqlite"] as const) {
        const start = performance.now();
        for (let i = 0; i < RUNTIME_RUNS; i++) await run(sides[name]);
        ms[name].push((performance.now() - start) / RUNTIME_RUNS);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
    const pgMs = median(ms.pg);
    const sqliteMs = median(ms.sqlite);
    return {
      pg_runs_per_s: Number((1000 / pgMs).toFixed(1)),
      sqlite_runs_per_s: Number((1000 / sqliteMs).toFixed(1)),
      pg_runs_per_s_over_sqlite: ratio(sqliteMs, pgMs),
      pg_run_ms: Number(pgMs.toFixed(2)),
      sqlite_run_ms: Number(sqliteMs.toFixed(2)),
      run_ms_rounds: { pg: ms.pg.map((x) => Number(x.toFixed(2))), sqlite: ms.sqlite.map((x) => Number(x.toFixed(2))) },
      runtime_durability: { pg: "sync", sqlite: "sync" },
      pg_round_trips_per_run: trips.total,
      pg_round_trips_breakdown: trips.breakdown,
    };
  } finally {
    await sides.pg.close();
    await sides.sqlite.close();
  }
}

const ours = PostgresSaver.fromConnString(schemaUrl(schemas.pg));
const official = OfficialPostgresSaver.fromConnString(SERVER, { schema: schemas.official_pg });
const sqlite = SqliteSaver.create({ path: join(dir, "sqlite.db") });
try {
  await ours.setup();
  await official.setup();
  const load = loadavg().map((n) => Number(n.toFixed(2)));
  const savers: Record<Name, BaseCheckpointSaver> = { pg: ours, official_pg: official, sqlite };
  const ops = await measureOps(savers, OPS);
  // The runtime fences every write with its run's lease: the run store's own fence (one statement) inside the write's transaction.
  const runs = PostgresRunStore.open(ours.db);
  const fence = (await new Scheduler(runs).createAndClaim({ graphId: "bench" }, { workerId: "bench", leaseMs: 3_600_000 })).claimed;
  if (fence === undefined) throw new Error("bench: the fencing run was not claimed");
  const fenced = new PostgresSaver(ours.db, undefined, { beforeWrite: (client) => fence.lease.fenceWrite({ backend: "postgres", client }) });
  await fenced.setup();
  const trips = { pg: await roundTrips(ours, "rt"), official_pg: await roundTrips(official, "rt"), pg_fenced: await roundTrips(fenced, "rt-fenced") };
  const run = await runtimeRunComparison();
  process.stdout.write(
    `load average ${load.join(" ")}; PostgreSQL ${serverSettings.version}, synchronous_commit=${serverSettings.synchronous_commit} (both PG savers); ` +
      `SqliteSaver WAL synchronous=${String(sqlite.db.pragma("synchronous", { simple: true }))} (1 = NORMAL)\n`,
  );
  const row = (label: string, key: keyof (typeof ops)["pg"], unit: string) =>
    process.stdout.write(
      `${label.padEnd(22)} pg ${fmt(ops.pg[key]).padStart(7)}  official_pg ${fmt(ops.official_pg[key]).padStart(7)}  sqlite ${fmt(ops.sqlite[key]).padStart(7)} ${unit.padEnd(8)} ` +
        `pg/official_pg ${ratio(ops.pg[key], ops.official_pg[key]).toFixed(2)}x, pg/sqlite ${ratio(ops.pg[key], ops.sqlite[key]).toFixed(2)}x\n`,
    );
  row("put", "put", "ops/s");
  row("putWrites", "putWrites", "calls/s");
  row("getTuple (latest)", "getTuple", "ops/s");
  row("getTuple (by id)", "getTupleById", "ops/s");
  row("list (200 checkpoints)", "list200", "lists/s");
  for (const [op, label] of [["put", "put (5 channels, 3 changed)"], ["putWrites", "putWrites (2 writes)"], ["getTuple", "getTuple (latest)"], ["list10", "list (10 checkpoints)"]] as const) {
    process.stdout.write(`round trips per ${label.padEnd(28)} pg ${trips.pg[op]}  official_pg ${trips.official_pg[op]}  pg fenced by the run store ${trips.pg_fenced[op]}\n`);
  }
  const total = run.pg_round_trips_per_run as number;
  process.stdout.write(
    `city_weather through Runtime (durability "sync" on both; PG synchronous_commit=${serverSettings.synchronous_commit}, SQLite WAL synchronous=NORMAL): ` +
      `pg ${String(run.pg_runs_per_s)} runs/s  sqlite ${String(run.sqlite_runs_per_s)} runs/s  pg/sqlite ${String(run.pg_runs_per_s_over_sqlite)}x\n` +
      `round trips per city_weather run on PostgreSQL: ${total} (2 model turns, 3 tool calls)\n`,
  );
  for (const [key, n] of Object.entries(run.pg_round_trips_breakdown as Record<string, number>)) process.stdout.write(`  ${String(n).padStart(3)}  ${key}\n`);
  const figures: Record<string, unknown> = { bench: "postgres", load, server: serverSettings, sqlite_synchronous: sqlite.db.pragma("synchronous", { simple: true }) };
  for (const name of ["pg", "official_pg", "sqlite"] as const) {
    figures[`${name}_put_per_s`] = Math.round(ops[name].put);
    figures[`${name}_put_writes_per_s`] = Math.round(ops[name].putWrites);
    figures[`${name}_get_tuple_per_s`] = Math.round(ops[name].getTuple);
    figures[`${name}_get_tuple_by_id_per_s`] = Math.round(ops[name].getTupleById);
    figures[`${name}_list200_per_s`] = Number(ops[name].list200.toFixed(1));
  }
  for (const name of ["pg", "official_pg", "pg_fenced"] as const) {
    figures[`${name}_round_trips_per_put`] = trips[name].put;
    figures[`${name}_round_trips_per_put_writes`] = trips[name].putWrites;
    figures[`${name}_round_trips_per_get_tuple`] = trips[name].getTuple;
    figures[`${name}_round_trips_per_list10`] = trips[name].list10;
  }
  figures.ratios = {
    put_pg_vs_official: ratio(ops.pg.put, ops.official_pg.put),
    put_writes_pg_vs_official: ratio(ops.pg.putWrites, ops.official_pg.putWrites),
    get_tuple_pg_vs_official: ratio(ops.pg.getTuple, ops.official_pg.getTuple),
    list200_pg_vs_official: ratio(ops.pg.list200, ops.official_pg.list200),
    put_pg_vs_sqlite: ratio(ops.pg.put, ops.sqlite.put),
    get_tuple_pg_vs_sqlite: ratio(ops.pg.getTuple, ops.sqlite.getTuple),
  };
  Object.assign(figures, run);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  sqlite.close();
  await ours.close();
  await official.end();
  for (const schema of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
