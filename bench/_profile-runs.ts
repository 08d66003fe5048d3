/**
 * Profiling driver (not a bench): `node --cpu-prof --import tsx bench/_profile-runs.ts [runs]` runs that many
 * sequential durable city_weather runs through `Runtime.submit`, for `scripts/cpu-profile-top.ts` to aggregate.
 * `PROFILE_SIDE=langgraph` runs the baseline instead (createReactAgent v2 + official SqliteSaver, durability sync).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Runtime } from "../src/runtime/index.js";
import { langgraphBaseline } from "./_langgraph-baseline.js";

const runs = Number(process.argv[2] ?? 600);
const MESSAGE = "Weather for Beijing, Shanghai and Shenzhen";
process.env.AGENTRT_SIM_LATENCY_MS = "0";
const dir = mkdtempSync(join(tmpdir(), "agentrt-profile-"));
if (process.env.PROFILE_SIDE === "langgraph") {
  const side = langgraphBaseline(join(dir, "lg.db"), { sameTool: true, version: "v2", durability: "sync" });
  for (let i = 0; i < runs; i++) await side.run(i);
  side.close();
} else {
  const runtime = Runtime.open({ db: join(dir, "agentrt.db"), config: fileURLToPath(new URL("../langgraph.json", import.meta.url)) });
  for (let i = 0; i < runs; i++) {
    const view = await runtime.submit({ graph: "city_weather", message: MESSAGE });
    if (view.status !== "SUCCEEDED") throw new Error(`city_weather ended ${view.status}`);
  }
  await runtime.close();
}
