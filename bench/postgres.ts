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
import { uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver as OfficialPostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { RunnableConfig } from "@langchain/core/runnables";
import pg from "pg";
import { PostgresSaver, SqliteSaver } from "../checkpointers/index.js";
import { PostgresRunStore, Scheduler } from "../src/runs/index.js";
import { measureOps } from "./_checkpointer-ops.js";
import { countRoundTrips, roundTripsPer } from "./_pg-round-trips.js";

const OPS = Number(process.env.BENCH_OPS ?? 300);
const SERVER = process.env.AGENTRT_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

type Name = "pg" | "official_pg" | "sqlite";
const suffix = randomBytes(4).toString("hex");
const schemas = { pg: `bench_pg_ours_${suffix}`, official_pg: `bench_pg_official_${suffix}` };
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

/**
 * INTEGRATOR: one sequential city_weather run through Runtime on PostgreSQL vs SQLite goes here once Runtime.open
 * takes a postgres:// target: time both, and count the run's PostgreSQL round trips with `roundTripsPer(1, …)`
 * (emit them as `pg_round_trips_per_run`, the timings as `pg_run_ms` / `sqlite_run_ms`).
 */
async function runtimeRunComparison(): Promise<Record<string, number> | undefined> {
  return undefined;
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
  if (run !== undefined) Object.assign(figures, run);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} finally {
  sqlite.close();
  await ours.close();
  await official.end();
  for (const schema of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
}
