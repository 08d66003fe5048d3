// `npm run bench -- checkpointer`: agentrt's SqliteSaver vs the official
// @langchain/langgraph-checkpoint-sqlite saver vs MemorySaver, file-backed DBs in a temp dir.
// Contestants run in interleaved rounds so load on a shared machine hits them alike.
// Last line: one JSON object with every figure.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph";
import { SqliteSaver as OfficialSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteSaver } from "../checkpointers/index.js";
import { fanOutGraph, threeNodeGraph } from "./_checkpointer-graphs.js";
import { interleaved, measureOps } from "./_checkpointer-ops.js";
import { databaseBytes, runMessageThread } from "./_delta-thread.js";

const OPS = Number(process.env.BENCH_OPS ?? 2000);
const CHAIN_INVOCATIONS = 500;
const FAN_INVOCATIONS = 200;

type Name = "ours" | "official" | "memory";
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-checkpointer-"));
const closers: (() => void)[] = [];
let opened = 0;

/** A fresh set of the three savers, file-backed where they can be. */
function openSavers(): Record<Name, BaseCheckpointSaver> {
  opened += 1;
  const ours = SqliteSaver.create({ path: join(dir, `ours-${opened}.db`) });
  const db = new Database(join(dir, `official-${opened}.db`));
  closers.push(() => ours.close(), () => db.close());
  return { ours, official: new OfficialSaver(db), memory: new MemorySaver() };
}

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
    `${label.padEnd(24)} ours ${fmt(f.ours).padStart(8)}  official ${fmt(f.official).padStart(8)}  memory ${fmt(f.memory).padStart(8)} ${unit.padEnd(8)} ours/official ${ratio(f.ours, f.official).toFixed(2)}x${extra}\n`,
  );

try {
  const ops = await measureOps(openSavers(), OPS);
  const pick = (key: keyof (typeof ops)["ours"]) => ({ ours: ops.ours[key], official: ops.official[key], memory: ops.memory[key] });
  row("put", pick("put"), "ops/s");
  row("putWrites", pick("putWrites"), "calls/s");
  row("getTuple (latest)", pick("getTuple"), "ops/s");
  row("list (200 checkpoints)", pick("list200"), "lists/s");

  const graphSavers = openSavers();
  const chain = await interleaved(
    {
      ours: threeNodeGraph(graphSavers.ours, "ours"),
      official: threeNodeGraph(graphSavers.official, "official"),
      memory: threeNodeGraph(graphSavers.memory, "memory"),
      none: threeNodeGraph(undefined, "none"),
    },
    CHAIN_INVOCATIONS,
  );
  row("3-node graph x500", chain, "inv/s", `; no checkpointer ${fmt(chain.none)} inv/s: ours/none ${ratio(chain.ours, chain.none)}x, official/none ${ratio(chain.official, chain.none)}x`);
  const fan = await interleaved(
    {
      ours: fanOutGraph(graphSavers.ours, "ours"),
      official: fanOutGraph(graphSavers.official, "official"),
      memory: fanOutGraph(graphSavers.memory, "memory"),
      none: fanOutGraph(undefined, "none"),
    },
    FAN_INVOCATIONS,
  );
  row("fan-out of 10 Sends", fan, "inv/s", `; no checkpointer ${fmt(fan.none)} inv/s: ours/none ${ratio(fan.ours, fan.none)}x`);

  const storage = { ours: await deltaStorage("ours"), official: await deltaStorage("official") };
  process.stdout.write(
    `MessagesDeltaValue thread, 200 steps x 2 KB: ours ${storage.ours.toFixed(2)}x, official ${storage.official.toFixed(2)}x its message bytes (file + WAL, after close)\n`,
  );
  process.stdout.write(
    `${JSON.stringify({
      bench: "checkpointer",
      ops,
      ratios: {
        put: ratio(ops.ours.put, ops.official.put),
        putWrites: ratio(ops.ours.putWrites, ops.official.putWrites),
        getTuple: ratio(ops.ours.getTuple, ops.official.getTuple),
        list200: ratio(ops.ours.list200, ops.official.list200),
        chain: ratio(chain.ours, chain.official),
        fanOut: ratio(fan.ours, fan.official),
        chainOursVsNone: ratio(chain.ours, chain.none),
        chainOfficialVsNone: ratio(chain.official, chain.none),
      },
      chain,
      fanOut: fan,
      deltaStorageRatio: storage,
    })}\n`,
  );
} finally {
  for (const close of closers) close();
  rmSync(dir, { recursive: true, force: true });
}
