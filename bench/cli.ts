// `npm run bench -- cli [--repeat N]`: how long one `agentrt` command takes from the shell until it exits, for
// `status`, `runs` and `approve`, the way a checkout runs it (`npm run agentrt --`, and the sources under tsx) and
// the way an installed package does (`node dist/src/cli/bin.js`, when dist/ is built).
// Each figure is the median of N runs in ms, wall and CPU (user + system, with GNU time); the last line is the
// figures as JSON.
// Startup is what it measures: run it on an idle machine (the load average is printed with the figures).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Runtime } from "../src/runtime/index.js";
import { closeWorlds, openWorld } from "../src/testing/sim-open.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const repeatAt = process.argv.indexOf("--repeat");
const REPEAT = repeatAt >= 0 ? Number(process.argv[repeatAt + 1]) : 5;

/** How each way starts the CLI (the command and its words before the command's own), and its environment. */
const WAYS: Record<string, { argv: string[]; env?: NodeJS.ProcessEnv }> = {
  // What a checkout's user types: a read command runs a fresh dist/, the others the sources under tsx.
  npm_run: { argv: ["npm", "run", "-s", "agentrt", "--"] },
  // The sources under tsx, always (what npm run agentrt did before, minus the tsx CLI's own process).
  sources: { argv: [process.execPath, "--import", "tsx", join(ROOT, "src/cli/bin.ts")] },
  ...(existsSync(join(ROOT, "dist/src/cli/bin.js")) ? { installed: { argv: [process.execPath, join(ROOT, "dist/src/cli/bin.js")], env: { AGENTRT_USE_DIST: "1" } } } : {}),
};

const db = join(mkdtempSync(join(tmpdir(), "agentrt-bench-cli-")), "cli.db");
const env: NodeJS.ProcessEnv = { ...process.env };
delete env.AGENTRT_USE_DIST;
delete env.OPENAI_API_KEY;
delete env.OPENAI_BASE_URL;

// Runs waiting for approval: one per approve to time (each approve resumes one to its end).
const runtime = Runtime.open({ db, config: join(ROOT, "langgraph.json") });
const waiting: Array<{ runId: string; actionId: string; argsHash: string }> = [];
for (let i = 0; i < REPEAT * Object.keys(WAYS).length + 1; i++) {
  const view = await runtime.submit({ graph: "ops_rollback", message: "Why did the payments deploy fail?", user: "alice" });
  const action = view.pending[0];
  if (action === undefined) throw new Error(`run ${view.run_id} did not wait for approval (${view.status})`);
  waiting.push({ runId: view.run_id, actionId: action.action_id, argsHash: action.args_hash });
}
await runtime.close();
// An approved rollback rolls the simulated deploy back: the world starts over before each approve (not timed).
const world = openWorld({ path: db });
const sample = waiting[0]!;

const COMMANDS: Record<string, () => Promise<string[]>> = {
  status: async () => ["status", sample.runId, "--db", db],
  runs: async () => ["runs", "--db", db],
  approve: async () => {
    const next = waiting.pop()!;
    await world.reset();
    return ["approve", next.runId, "--action", next.actionId, "--args-hash", next.argsHash, "--db", db];
  },
};

// The child's CPU time (user + system) moves far less with the machine's load than its wall time: GNU time reports it.
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;
const cpuFile = join(mkdtempSync(join(tmpdir(), "agentrt-bench-cpu-")), "cpu.txt");

/** One command's wall time and CPU time (ms; NaN without GNU time), from spawn to exit. */
function once(way: { argv: string[]; env?: NodeJS.ProcessEnv }, args: string[]): { wall: number; cpu: number } {
  const argv = [...way.argv, ...args];
  const [command, ...rest] = TIME === undefined ? argv : [TIME, "-f", "%U %S", "-o", cpuFile, ...argv];
  const started = performance.now();
  const child = spawnSync(command!, rest, { cwd: ROOT, env: { ...env, ...way.env }, encoding: "utf8" });
  const wall = performance.now() - started;
  if (child.status !== 0) throw new Error(`agentrt ${args[0]} exited ${String(child.status)}: ${child.stderr}`);
  const cpu = TIME === undefined ? NaN : readFileSync(cpuFile, "utf8").trim().split(/\s+/).reduce((sum, s) => sum + Number(s) * 1000, 0);
  return { wall, cpu };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const figures: Record<string, number> = {};
for (const [wayName, way] of Object.entries(WAYS)) {
  for (const [name, args] of Object.entries(COMMANDS)) {
    const walls: number[] = [];
    const cpuTimes: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      const { wall, cpu } = once(way, await args());
      walls.push(wall);
      cpuTimes.push(cpu);
    }
    figures[`${wayName}_${name}_ms`] = Math.round(median(walls));
    figures[`${wayName}_${name}_cpu_ms`] = Math.round(median(cpuTimes));
    process.stdout.write(`${wayName.padEnd(9)} ${name.padEnd(8)} median ${Math.round(median(walls))} ms wall, ${Math.round(median(cpuTimes))} ms CPU (walls ${walls.map((w) => Math.round(w)).join(", ")})\n`);
  }
}
process.stdout.write(`${JSON.stringify({ ...figures, repeat: REPEAT, cores: cpus().length, load_average_1m: Number(loadavg()[0]!.toFixed(2)) })}\n`);
await closeWorlds();
