/**
 * The overhead half of the runs bench: agentrt's durable city_weather run against LangGraph baselines and against
 * layers of its own path, every side on its own SQLite file, measured in alternating blocks of runs so a burst of
 * load on the shared machine hits every side alike; CPU is `process.cpuUsage` deltas around each block.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "../checkpointers/index.js";
import { openDatabase } from "../src/db/index.js";
import { Runtime } from "../src/runtime/index.js";
import { langgraphBaseline } from "./_langgraph-baseline.js";

const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
const WARMUP = 10;

/** One side of the comparison: `run(i)` performs one whole request on a fresh thread. */
export interface Side {
  run(i: number): Promise<unknown>;
  close(): void | Promise<void>;
}

/** Wall and CPU ms per run of each side in one round. */
export type RoundFigures = Record<string, { ms: number; cpuMs: number }>;

/** Thread numbers, unique across rounds: every run starts a new thread on every side. */
let thread = 0;
const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), "agentrt-bench-runs-")), name);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The sides of the overhead comparison, each on a new file. */
export async function openSides(config: string): Promise<Record<string, Side>> {
  process.env.AGENTRT_SIM_LATENCY_MS = "0";
  const runtime = Runtime.open({ db: tempDb("agentrt.db"), config });
  const { graph } = await import("../graphs/city_weather.js");
  /** The city_weather agent graph invoked directly: no run record, lease or trace; with agentrt's saver or none. */
  const graphSide = (withSaver: boolean): Side => {
    const db = openDatabase(tempDb("graph.db"));
    const copy = graph.withConfig({});
    if (withSaver) copy.checkpointer = new SqliteSaver(db);
    return {
      run: (i) => copy.invoke({ messages: [{ role: "user", content: MESSAGE }] }, { configurable: { thread_id: `g${i}` }, context: { db }, durability: "sync" } as never),
      close: () => {
        db.close();
      },
    };
  };
  return {
    agentrt: {
      run: async () => {
        const view = await runtime.submit({ graph: "city_weather", message: MESSAGE });
        if (view.status !== "SUCCEEDED") throw new Error(`city_weather ended ${view.status}`);
      },
      close: () => runtime.close(),
    },
    // The headline baseline (issue 21): one checkpointed task per tool call and every checkpoint awaited, as agentrt.
    langgraphV2Sync: langgraphBaseline(tempDb("lg-v2-sync.db"), { sameTool: true, version: "v2", durability: "sync" }),
    // Issue 4's setup: LangGraph's defaults (v1: a turn's calls in one task; "async" checkpoint writes).
    langgraph: langgraphBaseline(tempDb("lg-v1.db"), { sameTool: true, version: "v1", durability: "async" }),
    langgraphPlainTool: langgraphBaseline(tempDb("lg-plain.db"), { sameTool: false, version: "v1", durability: "async" }),
    langgraphFanOut: langgraphBaseline(tempDb("lg-v2.db"), { sameTool: false, version: "v2", durability: "async" }),
    graphAlone: graphSide(false),
    graphSaver: graphSide(true),
  };
}

/** One round: every side warmed, then `runs` runs each in `blocks` alternating blocks. */
export async function measureRound(sides: Record<string, Side>, runs: number, blocks: number): Promise<RoundFigures> {
  const figures: RoundFigures = {};
  for (const side of Object.values(sides)) for (let i = 0; i < WARMUP; i++) await side.run(thread++);
  const perBlock = Math.max(1, Math.round(runs / blocks));
  for (let b = 0; b < blocks; b++) {
    for (const [name, side] of Object.entries(sides)) {
      const start = performance.now();
      const cpu = cpuMs();
      for (let i = 0; i < perBlock; i++) await side.run(thread++);
      const f = (figures[name] ??= { ms: 0, cpuMs: 0 });
      f.ms += (performance.now() - start) / (perBlock * blocks);
      f.cpuMs += (cpuMs() - cpu) / (perBlock * blocks);
    }
  }
  return figures;
}
