/**
 * Profiling driver (not a bench): `NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR" npx tsx bench/_profile-server.ts [clients] [runs]`
 * drives `runs` city_weather runs.wait from `clients` SDK clients at once against `startServer` (workers from
 * PROFILE_WORKERS, default 2), in this process as in `npm run bench -- server`; NODE_OPTIONS profiles the forked
 * workers too. Prints runs/s and CPU ms per run (this process plus the workers).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { startServer } from "../src/server/server.js";

process.env.AGENTRT_SIM_LATENCY_MS ??= "50";
const clients = Number(process.argv[2] ?? 200);
const total = Number(process.argv[3] ?? 2000);
const workers = Number(process.env.PROFILE_WORKERS ?? 2);
const workerConcurrency = process.env.PROFILE_CONCURRENCY === undefined ? undefined : Number(process.env.PROFILE_CONCURRENCY);
const dir = mkdtempSync(join(tmpdir(), "agentrt-profile-server-"));
const config = join(dir, "langgraph.json");
writeFileSync(config, JSON.stringify({ graphs: { city_weather: `${fileURLToPath(new URL("../graphs/city_weather.ts", import.meta.url))}:graph` } }));
const input = { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] };
const server = await startServer({ port: 0, db: join(dir, "server.db"), config, apiKey: "", workers, workerConcurrency, log: (line) => console.error(line) });
while (workers > 0 && (server.workers.length < workers || !server.workers.every((w) => w.ready))) await new Promise((r) => setTimeout(r, 20));
const sdk = Array.from({ length: clients }, () => new Client({ apiUrl: server.url }));

function cpuOf(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks * 10;
}

async function drive(runs: number): Promise<void> {
  let left = runs;
  const pids = server.workers.map((w) => w.pid);
  const cpu = process.cpuUsage();
  const child = cpuOf(pids);
  const t = performance.now();
  await Promise.all(sdk.map(async (client) => {
    while (left-- > 0) await client.runs.wait(null, "city_weather", { input });
  }));
  const s = (performance.now() - t) / 1000;
  const own = process.cpuUsage(cpu);
  const ownMs = (own.user + own.system) / 1000;
  const childMs = cpuOf(pids) - child;
  console.log(`${runs} runs, ${(runs / s).toFixed(1)} runs/s; cpu/run: this process ${(ownMs / runs).toFixed(1)} ms, workers ${(childMs / runs).toFixed(1)} ms; load ${loadavg().map((v) => v.toFixed(2)).join(" ")}`);
}

await drive(Math.min(600, total));
await drive(total);
await server.close();
rmSync(dir, { recursive: true, force: true });
