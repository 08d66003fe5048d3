// city_weather with AGENTRT_SIM_LATENCY_MS=300: the three get_weather calls of one turn run in
// parallel, so a run's wall time is about one call, not three. Baseline in the same run: the
// same three simulated calls awaited one after another.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeInternals } from "../src/runtime/internals.js";

process.env.AGENTRT_SIM_LATENCY_MS = "300";
delete process.env.OPENAI_API_KEY;

const { Runtime } = await import("../src/runtime/index.js");
const { openWorld } = await import("../graphs/sim/index.js");

const config = fileURLToPath(new URL("../langgraph.json", import.meta.url));
const runtime = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-bench-")), "bench.db"), config });
const message = "Weather for Beijing, Shanghai and Shenzhen";
const rounds = 5;

await runtime.submit({ graph: "city_weather", message }); // warm-up: graph load, first checkpoints

const parallel: number[] = [];
let toolSpanMs = 0;
for (let i = 0; i < rounds; i++) {
  const started = performance.now();
  const view = await runtime.submit({ graph: "city_weather", message });
  parallel.push(performance.now() - started);
  if (view.status !== "SUCCEEDED") throw new Error(`run ${view.run_id} ended ${view.status}`);
  const spans = (await runtime.trace.spans(view.run_id)).filter((s) => s.kind === "tool_call");
  const start = Math.min(...spans.map((s) => s.startMs));
  const end = Math.max(...spans.map((s) => s.endMs ?? s.startMs));
  toolSpanMs += end - start;
}

// Baseline: the same three simulated calls, one after another, through the same world.
const world = await openWorld({ db: runtimeInternals(runtime).db });
const sequential: number[] = [];
for (let i = 0; i < rounds; i++) {
  const started = performance.now();
  for (const city of ["Beijing", "Shanghai", "Shenzhen"]) {
    await world.perform({ system: { name: "weather", seed: {} }, tool: "get_weather", sideEffect: false }, () => ({ city }));
  }
  sequential.push(performance.now() - started);
}
await runtime.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const run = median(parallel);
const seq = median(sequential);
const tools = toolSpanMs / rounds;
process.stdout.write(`city_weather, 3 calls × 300 ms, median of ${rounds} runs\n`);
process.stdout.write(`  whole run (2 model turns + 3 parallel calls): ${run.toFixed(0)} ms\n`);
process.stdout.write(`  the three calls, first start → last end:     ${tools.toFixed(0)} ms   (3 × 300 ms = 900 ms)\n`);
process.stdout.write(`  same three calls awaited one after another:  ${seq.toFixed(0)} ms\n`);
process.stdout.write(`${JSON.stringify({ city_weather_run_ms: Math.round(run), parallel_tools_ms: Math.round(tools), sequential_tools_ms: Math.round(seq), tools_over_one_call: +(tools / 300).toFixed(2) })}\n`);
