// `npm run bench -- server`: city_weather (3-way fan-out, 50 ms simulated latency) through `agentrt serve`
// with the official SDK's runs.wait, against the same runs through the in-process Runtime, in one process.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { Runtime } from "../src/runtime/index.js";
import { startServer } from "../src/server/server.js";

process.env.AGENTRT_SIM_LATENCY_MS ??= "50";
const dir = mkdtempSync(join(tmpdir(), "agentrt-bench-server-"));
const config = join(dir, "langgraph.json");
writeFileSync(config, JSON.stringify({ graphs: { city_weather: `${fileURLToPath(new URL("../graphs/city_weather.ts", import.meta.url))}:graph` } }));
const input = { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] };

interface Figures {
  runs: number;
  runsPerS: number;
  p50: number;
  p99: number;
  mean: number;
}

function figures(latencies: number[], wallMs: number): Figures {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  return { runs: sorted.length, runsPerS: (sorted.length * 1000) / wallMs, p50: at(0.5), p99: at(0.99), mean };
}

/** `clients` loops at once, each doing `perClient` runs one after another. */
async function load(clients: number, perClient: number, once: (client: number) => Promise<void>): Promise<Figures> {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; i < perClient; i++) {
      const t = performance.now();
      await once(c);
      latencies.push(performance.now() - t);
    }
  }));
  return figures(latencies, performance.now() - started);
}

const fmt = (f: Figures) => `${f.runs} runs, ${f.runsPerS.toFixed(1)} runs/s, mean ${f.mean.toFixed(1)} ms, p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms`;

const runtime = Runtime.open({ db: join(dir, "inprocess.db"), config });
const server = await startServer({ port: 0, db: join(dir, "server.db"), config, apiKey: "", log: () => undefined, workerConcurrency: 16 });
const sdk = Array.from({ length: 200 }, () => new Client({ apiUrl: server.url }));
const inProcess = async () => {
  const view = await runtime.submit({ graph: "city_weather", input });
  if (view.status !== "SUCCEEDED") throw new Error(`in-process run ${view.status}`);
};
const overApi = async (c: number) => {
  const values = (await sdk[c]!.runs.wait(null, "city_weather", { input })) as { error?: unknown };
  if (values.error != null) throw new Error(`server run failed: ${JSON.stringify(values.error)}`);
};

try {
  // Warm both paths (graph import, prepared statements) before measuring.
  await load(4, 2, inProcess);
  await load(4, 2, overApi);
  const seqIn = await load(1, 20, inProcess);
  const seqApi = await load(1, 20, overApi);
  console.log(`sequential   in-process: ${fmt(seqIn)}`);
  console.log(`sequential   server:     ${fmt(seqApi)}  (+${(seqApi.mean - seqIn.mean).toFixed(1)} ms per wait)`);
  const in50 = await load(50, 4, inProcess);
  const api50 = await load(50, 4, overApi);
  console.log(`50 clients   in-process: ${fmt(in50)}`);
  console.log(`50 clients   server:     ${fmt(api50)}  (${(api50.runsPerS / in50.runsPerS).toFixed(2)}× in-process)`);
  const in200 = await load(200, 2, inProcess);
  const api200 = await load(200, 2, overApi);
  console.log(`200 clients  in-process: ${fmt(in200)}`);
  console.log(`200 clients  server:     ${fmt(api200)}`);
  console.log(JSON.stringify({
    server_runs_per_s_50: Number(api50.runsPerS.toFixed(1)),
    server_over_inprocess_50: Number((api50.runsPerS / in50.runsPerS).toFixed(2)),
    p99_ms_200: Math.round(api200.p99),
    sequential_overhead_ms: Number((seqApi.mean - seqIn.mean).toFixed(1)),
  }));
} finally {
  await server.close();
  runtime.close();
}
