/**
 * Profiling driver (not a bench) for issue 21 target 4: `tsx bench/_profile-history.ts build [turns]` builds a
 * thread of that many approval turns (and one of 10) into PROFILE_DB once; `node --cpu-prof --import tsx
 * bench/_profile-history.ts measure [repeats]` then times getState and resume (approve → next model call) on a copy
 * of that file, alternating the threads; with PROFILE_OUT=file.cpuprofile, a CPU profile of the long thread's turns
 * and getStates only (PROFILE_ONLY=state or resume: only those; approve: only the approve calls of the long thread's
 * turns), for `scripts/cpu-profile-top.ts`.
 */
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openHistoryTurns } from "./_history-turns.js";

const [mode = "measure", countArg] = process.argv.slice(2);
const db = process.env.PROFILE_DB ?? join(tmpdir(), "agentrt-profile-history.db");
process.env.AGENTRT_SIM_LATENCY_MS = "0";
const dir = mkdtempSync(join(tmpdir(), "agentrt-profile-history-"));
const config = join(dir, "langgraph.json");
writeFileSync(config, JSON.stringify({ graphs: { history_agent: `${fileURLToPath(new URL("./_history-graph.ts", import.meta.url))}:graph` } }));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? 0;
const median = (xs: number[]) => quantile(xs, 0.5);

const path = mode === "build" ? db : join(dir, "copy.db");
if (mode !== "build") {
  if (!existsSync(db)) throw new Error(`no ${db}: run with "build" first`);
  copyFileSync(db, path);
}
const { runtime, turn, getState, cpu } = await openHistoryTurns(path, config);

if (mode === "build") {
  const turns = Number(countArg ?? 300);
  for (let i = 0; i < 10; i++) await turn("small");
  let lap = performance.now();
  for (let i = 0; i < turns; i++) {
    await turn("big");
    if ((i + 1) % 50 === 0) {
      process.stderr.write(`  ${i + 1}/${turns} turns, ${((performance.now() - lap) / 50).toFixed(1)} ms/turn\n`);
      lap = performance.now();
    }
  }
} else {
  const repeats = Number(countArg ?? 20);
  const times = { resumeSmall: [] as number[], resumeBig: [] as number[], stateSmall: [] as number[], stateBig: [] as number[] };
  const turnCpu = { small: 0, big: 0 };
  const approveCpu = { small: [] as number[], big: [] as number[] };
  const stateCpu = { small: [] as number[], big: [] as number[] };
  const out = process.env.PROFILE_OUT;
  const only = process.env.PROFILE_ONLY;
  const session = new Session();
  session.connect();
  if (out !== undefined) await session.post("Profiler.enable");
  /** Runs `fn`, profiled when it is of the kind profiled. */
  const profiled = async <T>(kind: string, fn: () => Promise<T>): Promise<T> => {
    if (out === undefined || (only !== undefined && only !== kind)) return fn();
    await session.post("Profiler.start");
    try {
      return await fn();
    } finally {
      const { profile } = await session.post("Profiler.stop");
      profiles.push(profile);
    }
  };
  const profiles: { nodes: unknown[]; samples?: number[]; timeDeltas?: number[] }[] = [];
  for (let r = 0; r < repeats; r++) {
    let used = process.cpuUsage();
    times.resumeSmall.push(await turn("small"));
    turnCpu.small += process.cpuUsage(used).user;
    approveCpu.small.push(cpu.approve);
    used = process.cpuUsage();
    times.resumeBig.push(only === "approve" ? await turn("big", (approve) => profiled("approve", approve)) : await profiled("resume", () => turn("big")));
    turnCpu.big += process.cpuUsage(used).user;
    approveCpu.big.push(cpu.approve);
    times.stateSmall.push(await getState("small"));
    stateCpu.small.push(cpu.getState);
    times.stateBig.push(await profiled("state", () => getState("big")));
    stateCpu.big.push(cpu.getState);
  }
  const f = (xs: number[]) => median(xs).toFixed(2);
  console.log(`resume big ${f(times.resumeBig)} ms vs small ${f(times.resumeSmall)} ms; getState big ${f(times.stateBig)} ms vs small ${f(times.stateSmall)} ms`);
  if (out !== undefined) writeFileSync(out, JSON.stringify(mergeProfiles(profiles)));
  console.log(`whole turn CPU: big ${(turnCpu.big / 1000 / repeats).toFixed(1)} ms vs small ${(turnCpu.small / 1000 / repeats).toFixed(1)} ms`);
  console.log(`approve CPU (median): big ${f(approveCpu.big)} ms vs small ${f(approveCpu.small)} ms; getState CPU: big ${f(stateCpu.big)} ms vs small ${f(stateCpu.small)} ms`);
  // The spikes: a new snapshot of the messages channel every ~100 updates, revived on its first read.
  const tail = (xs: number[]) => `p99 ${quantile(xs, 0.99).toFixed(1)} max ${Math.max(...xs).toFixed(1)}`;
  const spikes = (xs: number[]) => xs.map((x, i) => [i, x] as const).filter(([, x]) => x > 3 * median(xs)).map(([i, x]) => `#${i} ${x.toFixed(0)}`).join(" ");
  console.log(`spikes (over 3x the median), approve CPU: ${spikes(approveCpu.big)}; getState CPU: ${spikes(stateCpu.big)}`);
  console.log(`long thread: approve CPU ${tail(approveCpu.big)} ms, resume wall ${tail(times.resumeBig)} ms, getState CPU ${tail(stateCpu.big)} ms, wall ${tail(times.stateBig)} ms`);
}
await runtime.close();

/** One profile of several: node ids renumbered per profile, samples and time deltas concatenated. */
function mergeProfiles(profiles: { nodes: unknown[]; samples?: number[]; timeDeltas?: number[] }[]): object {
  const nodes: unknown[] = [];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let offset = 0;
  for (const p of profiles) {
    let max = 0;
    for (const n of p.nodes as { id: number; children?: number[] }[]) {
      max = Math.max(max, n.id);
      nodes.push({ ...n, id: n.id + offset, children: n.children?.map((c) => c + offset) });
    }
    for (const s of p.samples ?? []) samples.push(s + offset);
    timeDeltas.push(...(p.timeDeltas ?? []));
    offset += max;
  }
  return { nodes, samples, timeDeltas, startTime: 0, endTime: 0 };
}
