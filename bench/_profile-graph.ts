/**
 * Profiling driver (not a bench): `node --cpu-prof --import tsx bench/_profile-graph.ts [runs]` invokes agentrt's
 * city_weather graph alone (no run record, lease or trace) that many times, with its SqliteSaver when
 * `PROFILE_SAVER=1`, for `scripts/cpu-profile-top.ts`: the agent graph layer's share of a durable run.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteSaver } from "../checkpointers/index.js";
import { openDatabase } from "../src/db/index.js";

const runs = Number(process.argv[2] ?? 1000);
const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
process.env.AGENTRT_SIM_LATENCY_MS = "0";
const { graph } = await import("../graphs/city_weather.js");
const db = openDatabase(join(mkdtempSync(join(tmpdir(), "agentrt-profile-graph-")), "graph.db"));
const copy = graph.withConfig({});
if (process.env.PROFILE_SAVER === "1") copy.checkpointer = new SqliteSaver(db);
const cpu0 = process.cpuUsage();
for (let i = 0; i < runs; i++) {
  await copy.invoke({ messages: [{ role: "user", content: MESSAGE }] }, { configurable: { thread_id: `g${i}` }, context: { db }, durability: "sync" } as never);
}
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`${runs} graph runs: ${((cpu.user + cpu.system) / 1000 / runs).toFixed(3)} ms CPU each\n`);
db.close();
