// `npm run bench -- checkpointer`: agentrt's SqliteSaver vs the official
// @langchain/langgraph-checkpoint-sqlite saver vs MemorySaver, file-backed DBs in a temp dir.
// Contestants run in interleaved rounds so load on a shared machine hits them alike.
// "ours" is the default `durability: "commit"` (each put/putWrites resolves after its commit; calls
// arriving together share one); "ours, group" the opt-in `durability: "group"` (one commit per
// event-loop turn, a put resolving before it; flushed inside every timed slice).
// Both SQLite savers run WAL with synchronous=NORMAL (printed), the official one as it ships.
// Last line: one JSON object with every figure.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver as OfficialSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { loadavg } from "node:os";
import { SqliteSaver } from "../checkpointers/index.js";
import { fanOutGraph, threeNodeGraph } from "./_checkpointer-graphs.js";
import { commitFloor } from "./_commit-floor.js";
import { NullSaver } from "./_checkpointer-null.js";
import { WRITERS, concurrentPuts, interleaved, measureOps } from "./_checkpointer-ops.js";
import { databaseBytes, runMessageThread } from "./_delta-thread.js";

const OPS = Number(process.env.BENCH_OPS ?? 2000);
const CHAIN_INVOCATIONS = 500;
const FAN_INVOCATIONS = 200;

type Name = "ours" | "group" | "official" | "memory";
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-checkpointer-"));
const closers: (() => void)[] = [];
let opened = 0;

/** A fresh set of the savers, file-backed where they can be. */
function openSavers(): Record<Name, BaseCheckpointSaver> {
  opened += 1;
  const ours = SqliteSaver.create({ path: join(dir, `ours-${opened}.db`) });
  const group = SqliteSaver.create({ path: join(dir, `group-${opened}.db`), durability: "group" });
  const db = new Database(join(dir, `official-${opened}.db`));
  closers.push(() => ours.close(), () => group.close(), () => db.close());
  const official = new OfficialSaver(db);
  (official as unknown as { setup(): void }).setup(); // protected; it sets WAL, as its first call would
  synchronous = { ours: ours.db.pragma("synchronous", { simple: true }), official: db.pragma("synchronous", { simple: true }) };
  return { ours, group, official, memory: new MemorySaver() };
}
let synchronous: Record<string, unknown> = {};

/** Storage of the 200-step MessagesDeltaValue thread: (file + WAL after close) ÷ message bytes. */
async function deltaStorage(name: "ours" | "official"): Promise<number> {
  const path = join(dir, `delta-${name}.db`);
  const db = name === "official" ? new Database(path) : undefined;
  const saver = db === undefined ? SqliteSaver.create({ path }) : new OfficialSaver(db);
  const messageBytes = await runMessageThread(saver, { delta: true });
  if (db !== undefined) db.close();
  else (saver as SqliteSaver).close();
  return databaseBytes(path) / messageBytes;
}

const fmt = (n: number) => (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1));
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
const row = (label: string, f: Record<Name, number>, unit: string, extra = "") =>
  process.stdout.write(
    `${label.padEnd(24)} ours ${fmt(f.ours).padStart(8)}  ours,group ${fmt(f.group).padStart(8)}  official ${fmt(f.official).padStart(8)}  memory ${fmt(f.memory).padStart(8)} ${unit.padEnd(8)} ours/official ${ratio(f.ours, f.official).toFixed(2)}x, group/official ${ratio(f.group, f.official).toFixed(2)}x${extra}\n`,
  );

try {
  const load = loadavg().map((n) => Number(n.toFixed(2)));
  const ops = await measureOps(openSavers(), OPS);
  process.stdout.write(`load average ${load.join(" ")}; synchronous ours=${String(synchronous.ours)} official=${String(synchronous.official)} (1 = NORMAL)\n`);
  const pick = (key: keyof (typeof ops)["ours"]) => ({ ours: ops.ours[key], group: ops.group[key], official: ops.official[key], memory: ops.memory[key] });
  row("put", pick("put"), "ops/s");
  // Measured after the savers, so it sees the machine they saw.
  const floor = commitFloor(dir);
  process.stdout.write(
    `  SQLite's floor here: a bare one-row transaction (1.5 KB row) ${fmt(floor)}/s = ${ratio(floor, ops.official.put).toFixed(2)}x the official put; a saver committing each put stays under it\n`,
  );
  process.stdout.write(`  ours put = ${ratio(ops.ours.put, floor).toFixed(2)}x that floor, official ${ratio(ops.official.put, floor).toFixed(2)}x\n`);
  // Fresh files: the writers' threads start empty on every saver.
  const concurrent = await concurrentPuts(openSavers(), OPS * 4);
  row(`put, ${WRITERS} writers at once`, concurrent, "puts/s", " (aggregate; ours and official resolve each put after its commit, ours,group flushes at the end of each slice)");
  row("putWrites", pick("putWrites"), "calls/s");
  row("getTuple (latest)", pick("getTuple"), "ops/s");
  row("getTuple (by id, cold)", pick("getTupleById"), "ops/s");
  row("list (200 checkpoints)", pick("list200"), "lists/s");

  // "null" stores nothing: the gap between it and "none" is LangGraph's own checkpointing cost.
  const graphSavers = openSavers();
  const graphs = <T>(make: (saver: BaseCheckpointSaver | undefined, label: string) => T) => ({
    ours: make(graphSavers.ours, "ours"),
    group: make(graphSavers.group, "group"),
    official: make(graphSavers.official, "official"),
    memory: make(graphSavers.memory, "memory"),
    null: make(new NullSaver(), "null"),
    none: make(undefined, "none"),
  });
  const flushGroup = { group: () => (graphSavers.group as SqliteSaver).flush() };
  const chain = await interleaved(graphs(threeNodeGraph), CHAIN_INVOCATIONS, 10, flushGroup);
  const vsNone = (f: Record<string, number>) =>
    `; no checkpointer ${fmt(f.none ?? 0)} inv/s, a saver storing nothing ${fmt(f.null ?? 0)}: vs none ours ${ratio(f.ours ?? 0, f.none ?? 1)}x, group ${ratio(f.group ?? 0, f.none ?? 1)}x, official ${ratio(f.official ?? 0, f.none ?? 1)}x, memory ${ratio(f.memory ?? 0, f.none ?? 1)}x, nothing-saver ${ratio(f.null ?? 0, f.none ?? 1)}x`;
  row("3-node graph x500", chain, "inv/s", vsNone(chain));
  const fan = await interleaved(graphs(fanOutGraph), FAN_INVOCATIONS, 10, flushGroup);
  row("fan-out of 10 Sends", fan, "inv/s", vsNone(fan));

  const storage = { ours: await deltaStorage("ours"), official: await deltaStorage("official") };
  process.stdout.write(
    `MessagesDeltaValue thread, 200 steps x 2 KB: ours ${storage.ours.toFixed(2)}x, official ${storage.official.toFixed(2)}x its message bytes (file + WAL, after close)\n`,
  );
  process.stdout.write(
    `${JSON.stringify({
      bench: "checkpointer",
      load,
      synchronous,
      ops,
      ratios: {
        put: ratio(ops.ours.put, ops.official.put),
        putGroup: ratio(ops.group.put, ops.official.put),
        putOverCommitFloor: ratio(ops.ours.put, floor),
        officialPutOverCommitFloor: ratio(ops.official.put, floor),
        concurrentPut: ratio(concurrent.ours, concurrent.official),
        concurrentPutGroup: ratio(concurrent.group, concurrent.official),
        putWrites: ratio(ops.ours.putWrites, ops.official.putWrites),
        putWritesGroup: ratio(ops.group.putWrites, ops.official.putWrites),
        getTuple: ratio(ops.ours.getTuple, ops.official.getTuple),
        getTupleById: ratio(ops.ours.getTupleById, ops.official.getTupleById),
        list200: ratio(ops.ours.list200, ops.official.list200),
        chain: ratio(chain.ours, chain.official),
        fanOut: ratio(fan.ours, fan.official),
        chainOursVsNone: ratio(chain.ours, chain.none),
        chainGroupVsNone: ratio(chain.group, chain.none),
        chainOfficialVsNone: ratio(chain.official, chain.none),
        chainMemoryVsNone: ratio(chain.memory, chain.none),
        chainNothingSaverVsNone: ratio(chain.null, chain.none),
      },
      concurrentPuts: { writers: WRITERS, ...concurrent },
      chain,
      fanOut: fan,
      deltaStorageRatio: storage,
      commitFloor: floor,
      commitFloorOverOfficialPut: ratio(floor, ops.official.put),
    })}\n`,
  );
} finally {
  for (const close of closers) close();
  rmSync(dir, { recursive: true, force: true });
}
