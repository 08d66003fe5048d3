// Claims across processes on PostgreSQL (issue 18, item 1): three worker processes on one schema share a global cap
// and a per-user cap over runs of three users on shared threads. From the run_events log (one sequence across every
// process, in the order the serialised claims wrote it): the caps were never exceeded cluster-wide, no thread ever had
// two runs RUNNING, every run finished exactly once; and a worker SIGKILLed while holding runs is replaced by the others.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/runs/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { useTestSchema } from "../helpers/postgres.js";
import { until } from "../helpers/worker-process.js";

const schema = useTestSchema(import.meta.url);
const WORKER = new URL("fixtures/capped-worker.ts", import.meta.url).pathname;
const ROOT = new URL("../..", import.meta.url).pathname;
const MAX_RUNNING = 4;
const MAX_PER_USER = 2;
const USERS = ["alice", "bob", "carol"];
const RUNS = 18;

interface Capped { id: string; proc: ChildProcess; ready: Promise<void>; exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> }
const started: Capped[] = [];
const opened: Runtime[] = [];
afterAll(async () => {
  for (const w of started) w.proc.kill("SIGKILL");
  for (const rt of opened) await rt.close();
});

function startCapped(url: string, id: string): Capped {
  const proc = spawn(process.execPath, ["--import", "tsx", WORKER], {
    cwd: ROOT,
    env: {
      ...process.env, OPENAI_API_KEY: "", AGENTRT_SIM_LATENCY_MS: "150", AGENTRT_SIM_FAULTS: "",
      DB: url, WORKER_ID: id, LEASE_MS: "2000", CONCURRENCY: "3", MAX_RUNNING: String(MAX_RUNNING), MAX_PER_USER: String(MAX_PER_USER),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  proc.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes("ready\n")) markReady();
  });
  proc.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<Awaited<Capped["exit"]>>((resolve) => proc.on("exit", (code, signal) => {
    markReady();
    resolve({ code, signal, stdout, stderr });
  }));
  const worker = { id, proc, ready, exit };
  started.push(worker);
  return worker;
}

/** Replays the log in order: the most runs RUNNING at once overall, per user and per thread. */
function peaks(events: RunEvent[], userOf: Map<string, string>, threadOf: Map<string, string>) {
  const running = new Set<string>();
  const peak = { total: 0, perUser: 0, perThread: 0 };
  const count = (key: (run: string) => string) => {
    const by = new Map<string, number>();
    for (const run of running) by.set(key(run), (by.get(key(run)) ?? 0) + 1);
    return Math.max(0, ...by.values());
  };
  for (const e of events) {
    if (e.from === "RUNNING") running.delete(e.runId);
    if (e.to === "RUNNING") running.add(e.runId);
    peak.total = Math.max(peak.total, running.size);
    peak.perUser = Math.max(peak.perUser, count((run) => userOf.get(run)!));
    peak.perThread = Math.max(peak.perThread, count((run) => threadOf.get(run)!));
  }
  return peak;
}

describe("three worker processes claiming from one PostgreSQL schema", () => {
  it(`keep the global cap ${MAX_RUNNING} and the per-user cap ${MAX_PER_USER} cluster-wide, one run per thread, and replace a killed worker`, async () => {
    const rt = Runtime.open({ db: schema.url, config: `${ROOT}langgraph.json` });
    opened.push(rt);
    const { runs } = runtimeInternals(rt);
    const userOf = new Map<string, string>();
    const threadOf = new Map<string, string>();
    // Two threads per user, three runs on each: the caps and the threads both hold runs back.
    for (let i = 0; i < RUNS; i++) {
      const user = USERS[i % USERS.length]!;
      const threadId = `thread_${user}_${i % 2}`;
      const run = await rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", user, threadId, queue: true, priority: i % 3 });
      userOf.set(run.run_id, user);
      threadOf.set(run.run_id, run.thread_id);
    }
    const workers = ["w1", "w2", "w3"].map((id) => startCapped(schema.url, id));
    await Promise.all(workers.map((w) => w.ready));
    // Whichever worker first holds runs dies with them; the others must take them over after the lease. (Not always
    // w1: an idle worker hears of queued runs, not of capacity another worker freed, so two busy workers can keep
    // the caps full between the third one's safety polls.)
    const held = async () => (await runs.list({ status: "RUNNING", limit: 100 })).filter((r) => r.lease?.owner !== undefined);
    await until("a worker holding a run", async () => (await held()).length > 0);
    const victimId = (await held())[0]?.lease?.owner ?? "w1";
    const victimIndex = Math.max(0, ["w1", "w2", "w3"].indexOf(victimId));
    const victim = workers[victimIndex]!;
    const survivors = workers.filter((_, i) => i !== victimIndex);
    const heldAtKill = (await held()).filter((r) => r.lease?.owner === victimId).map((r) => r.runId);
    victim.proc.kill("SIGKILL");
    expect((await victim.exit).signal).toBe("SIGKILL");
    await until("every run finished", async () => (await runs.list({ limit: 100 })).every((r) => r.status === "SUCCEEDED" || r.status === "FAILED"), survivors, 120_000);
    for (const w of survivors) w.proc.kill("SIGTERM");
    for (const w of survivors) expect((await w.exit).code, (await w.exit).stderr).toBe(0);

    const all = await runs.list({ limit: 100 });
    expect(all.filter((r) => r.status !== "SUCCEEDED").map((r) => [r.runId, r.status, r.errorCode])).toEqual([]);
    const events = await runs.eventsAfter(0, { limit: 10_000 });
    // Not vacuous: the caps were reached, and the victim's runs were recovered by the others.
    const peak = peaks(events, userOf, threadOf);
    expect(peak).toEqual({ total: MAX_RUNNING, perUser: MAX_PER_USER, perThread: 1 });
    // What the victim held when it died (unless it finished in the instant before) was recovered after its lease by another.
    const recovered = heldAtKill.filter((runId) => events.some((e) => e.runId === runId && e.to === "SUCCEEDED" && e.actor !== victimId));
    expect(recovered.length).toBeGreaterThan(0);
    for (const runId of recovered) {
      const own = events.filter((e) => e.runId === runId);
      expect(own.some((e) => e.errorCode === "LEASE_LOST"), runId).toBe(true);
      expect(own.at(-1)?.actor).toMatch(/^w[123]$/);
      expect(own.at(-1)?.actor).not.toBe(victimId);
    }
    // Runs of one thread were claimed oldest first (run ids sort by creation), each after the one before it ended.
    for (const thread of new Set(threadOf.values())) {
      const firstClaims = [...new Set(events.filter((e) => e.to === "RUNNING" && threadOf.get(e.runId) === thread).map((e) => e.runId))];
      expect(firstClaims, thread).toEqual([...firstClaims].sort());
      expect(firstClaims).toHaveLength(3);
    }
    // Every run finished exactly once.
    for (const run of all) {
      expect(events.filter((e) => e.runId === run.runId && e.to === "SUCCEEDED"), run.runId).toHaveLength(1);
    }
  }, 180_000);
});
