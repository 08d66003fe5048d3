// `agentrt serve --workers N`: runs.wait and background runs execute in forked worker processes on the same
// SQLite file or PostgreSQL schema (real HTTP, the official SDK, real child processes); approvals, input, cancel and
// streaming keep working; the worker processes stop with the server, also when it is killed with SIGKILL.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { startServer, type AgentServer } from "../../src/server/server.js";
import { ThreadStateReader } from "../../src/server/thread-state.js";
import { ROLLBACK_INPUT, graphFile, type Approval } from "./harness.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { useTestSchema } from "../helpers/postgres.js";

const slowGraph = fileURLToPath(new URL("./fixtures/slow-graph.ts", import.meta.url));
const serveChild = fileURLToPath(new URL("./fixtures/serve-workers-child.ts", import.meta.url));
const WEATHER = { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] };
const schema = useTestSchema(import.meta.url);

/** A fresh project: langgraph.json with the graphs these tests run, and a SQLite file (or `db`, a PostgreSQL URL). */
function project(db?: string): { db: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-workers-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: {
    city_weather: `${graphFile("city_weather")}:graph`,
    ops_rollback: `${graphFile("ops_rollback")}:graph`,
    order_delay: `${graphFile("order_delay")}:graph`,
    slow: `${slowGraph}:graph`,
  } }));
  return { db: db ?? join(dir, "agentrt.db"), config };
}

/** True while the process exists and is not a zombie (an orphan's zombie may linger if nobody reaps it). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Who claimed each attempt of a run (lease owners, from the run's events). */
async function claimers(server: AgentServer, runId: string): Promise<string[]> {
  return (await runtimeInternals(server.runtime).runs.events(runId)).filter((e) => e.to === "RUNNING").map((e) => e.actor ?? "");
}

describe("server with worker processes", () => {
  let server: AgentServer;
  let client: Client;
  let childIds: () => string[];
  const slowStep = process.env.SLOW_STEP_MS;
  const abortLog = join(mkdtempSync(join(tmpdir(), "agentrt-abort-log-")), "aborted.txt");

  beforeAll(async () => {
    delete process.env.OPENAI_API_KEY;
    process.env.SLOW_STEP_MS = "1000"; // inherited by the worker processes
    process.env.SLOW_ABORT_LOG = abortLog;
    const { db, config } = project();
    server = await startServer({ port: 0, db, config, apiKey: "", workers: 2, log: () => undefined });
    client = new Client({ apiUrl: server.url, apiKey: null });
    await until("worker processes ready", () => server.workers.length === 2 && server.workers.every((w) => w.ready));
    const ids = new Set(server.workers.map((w) => w.id));
    childIds = () => [...ids];
  });

  afterAll(async () => {
    delete process.env.SLOW_ABORT_LOG;
    if (slowStep === undefined) delete process.env.SLOW_STEP_MS;
    else process.env.SLOW_STEP_MS = slowStep;
    const pids = server.workers.map((w) => w.pid);
    await server.close();
    // close() returns once every worker process has exited.
    expect(pids.filter(alive)).toEqual([]);
    expect(server.workers).toEqual([]);
  });

  it("runs concurrent runs.wait to success, executed by the worker processes", async () => {
    // A finished run's answer is the final state its worker process sent with the rest: no state read here.
    const reads = vi.spyOn(ThreadStateReader.prototype, "state");
    onTestFinished(() => reads.mockRestore());
    const results = await Promise.all(Array.from({ length: 8 }, () => client.runs.wait(null, "city_weather", { input: WEATHER })));
    expect(reads).not.toHaveBeenCalled();
    for (const values of results) {
      expect(values).not.toHaveProperty("__error__");
      expect(JSON.stringify(values)).toMatch(/Beijing/);
    }
    const runs = (await runtimeInternals(server.runtime).runs.list({ limit: 100 })).filter((r) => r.graphId === "city_weather");
    expect(runs).toHaveLength(8);
    expect(runs.map((r) => r.status)).toEqual(Array(8).fill("SUCCEEDED"));
    const byChild = (await Promise.all(runs.map((r) => claimers(server, r.runId)))).filter((ids) => ids.some((id) => childIds().includes(id)));
    expect(byChild.length).toBeGreaterThan(0);
    // The same values the thread's state shows.
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, "city_weather", { input: WEATHER });
    expect(values).toEqual((await client.threads.getState(thread.thread_id)).values);
  });

  it("waits for an approval and resumes with command.resume in a worker process", async () => {
    const thread = await client.threads.create();
    const waiting = (await client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT })) as { __interrupt__?: { value: Approval }[] };
    const approval = waiting.__interrupt__?.[0]?.value;
    expect(approval?.tool).toBe("rollback_deployment");
    const right = { action_id: approval?.action_id, args_hash: approval?.args_hash, decision: "approve" };
    const done = (await client.runs.wait(thread.thread_id, "ops_rollback", { command: { resume: right } })) as { messages: { content: string }[] };
    expect(done.messages.at(-1)?.content).toMatch(/Rolled back to/);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run?.status).toBe("success");
    // The resume was queued for a worker process, which claimed it.
    expect(childIds()).toContain((await claimers(server, run!.run_id)).at(-1));
  });

  it("asks for input and resumes with a plain string", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "order_delay", { input: { messages: [{ role: "user", content: "Is my order late?" }] } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const done = (await client.runs.wait(thread.thread_id, "order_delay", { command: { resume: "order 10086" } })) as { result?: string };
    expect(done.result).toMatch(/Order 10086 .* is delayed/);
  });

  it("streams a run live from the server's own process", async () => {
    const events: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(null, "city_weather", { input: WEATHER, streamMode: ["updates", "values"] })) events.push(part);
    expect(events[0]?.event).toBe("metadata");
    expect(events.filter((e) => e.event === "updates").length).toBeGreaterThan(1);
    const runId = (events[0]?.data as { run_id: string }).run_id;
    expect((await runtimeInternals(server.runtime).runs.get(runId)).status).toBe("SUCCEEDED");
    expect(childIds()).not.toContain((await claimers(server, runId))[0]);
  });

  it("keeps streamed runs in the server while the worker processes claim other runs", async () => {
    const stream = async () => {
      const events: { event: string; data: unknown }[] = [];
      for await (const part of client.runs.stream(null, "city_weather", { input: WEATHER, streamMode: ["updates"] })) events.push(part);
      return events;
    };
    const [streams] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, stream)),
      Promise.all(Array.from({ length: 12 }, () => client.runs.wait(null, "city_weather", { input: WEATHER }))),
    ]);
    for (const events of streams) {
      const runId = (events[0]?.data as { run_id: string }).run_id;
      // A worker process claiming it first would leave the stream without live chunks.
      expect(childIds()).not.toContain((await claimers(server, runId))[0]);
      expect(events.filter((e) => e.event === "updates").length).toBeGreaterThan(1);
    }
  });

  it("joins the stream of a background run a worker process executes: no live chunks, its final values when it rests", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "city_weather", { input: WEATHER });
    const events: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: "values" })) events.push(part);
    expect(childIds()).toContain((await claimers(server, run.run_id))[0]);
    // The stream bus is the server's: nothing live from the worker, one snapshot once the run rests.
    expect(events.filter((e) => e.event === "values")).toHaveLength(1);
    expect(events.at(-1)?.event).toBe("values");
    expect(JSON.stringify(events.at(-1)?.data)).toMatch(/Shenzhen/);
    expect(events.some((e) => e.event === "error")).toBe(false);
  });

  it("cancels a run executing in a worker process at once, not at its next heartbeat", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { steps: [] } });
    await until("step a checkpointed", async () => ((await client.threads.getState<{ steps?: string[] }>(thread.thread_id)).values.steps ?? []).length >= 1);
    expect(childIds()).toContain((await claimers(server, run.run_id))[0]);
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    expect((await runtimeInternals(server.runtime).runs.get(run.run_id)).status).toBe("CANCELED");
    // Step b (1 s) was under way: told at once, the worker aborts it mid-sleep. Left to itself, the worker
    // would let b finish and only then find its checkpoint write refused (or notice at a heartbeat).
    await until("step b aborted in the worker", () => existsSync(abortLog) && readFileSync(abortLog, "utf8").includes("b aborted"), 5000);
    expect((await client.threads.getState<{ steps?: string[] }>(thread.thread_id)).values.steps).toEqual(["a"]);
  });

  it("restarts a worker process that died; its runs come back", async () => {
    const [victim] = server.workers;
    process.kill(victim!.pid, "SIGKILL");
    await until("a new worker process", () => server.workers.length === 2 && server.workers.every((w) => w.ready && w.pid !== victim!.pid));
    const values = await client.runs.wait(null, "city_weather", { input: WEATHER });
    expect(values).not.toHaveProperty("__error__");
  });
});

describe("server killed with SIGKILL", () => {
  const spawned: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of spawned.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  });

  async function serve(db: string, config: string): Promise<{ child: ChildProcess; url: string; workers: number[] }> {
    const server = spawn(process.execPath, ["--import", "tsx", serveChild, db, config, "1"], {
      env: { ...process.env, AGENTRT_LEASE_MS: "1000", SLOW_STEP_MS: "400" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    spawned.push(server);
    for await (const line of createInterface({ input: server.stdout })) {
      return { child: server, ...(JSON.parse(line) as { url: string; workers: number[] }) };
    }
    throw new Error("server exited before printing its address");
  }

  it("takes its worker processes with it, and the next server finishes the run they held", async () => {
    const { db, config } = project();
    const first = await serve(db, config);
    expect(first.workers).toHaveLength(1);
    const client = new Client({ apiUrl: first.url, apiKey: null });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { steps: [] } });
    await until("step a checkpointed", async () => ((await client.threads.getState<{ steps?: string[] }>(thread.thread_id)).values.steps ?? []).length >= 1);

    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    await until("worker processes gone", () => first.workers.every((pid) => !alive(pid)));

    const second = await serve(db, config);
    const again = new Client({ apiUrl: second.url, apiKey: null });
    const values = (await again.runs.join(thread.thread_id, run.run_id)) as { steps: string[] };
    expect(values.steps).toEqual(["a", "b", "c"]);
    expect((await again.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
    await until("worker processes of the second server gone", () => second.workers.every((pid) => !alive(pid)));
    // Two servers and their forks start and one lease expires in turn: ~20 s on a quiet machine, three times that under load.
  }, 150_000);
});

describe("server with a worker process on PostgreSQL", () => {
  let server: AgentServer;
  let client: Client;
  let childIds: string[];
  const slowStep = process.env.SLOW_STEP_MS;

  beforeAll(async () => {
    delete process.env.OPENAI_API_KEY;
    process.env.SLOW_STEP_MS = "1000";
    const { db, config } = project(schema.fresh("w").url);
    server = await startServer({ port: 0, db, config, apiKey: "", workers: 1, log: () => undefined });
    client = new Client({ apiUrl: server.url, apiKey: null });
    await until("worker process ready", () => server.workers.length === 1 && server.workers.every((w) => w.ready));
    childIds = server.workers.map((w) => w.id);
  });

  afterAll(async () => {
    if (slowStep === undefined) delete process.env.SLOW_STEP_MS;
    else process.env.SLOW_STEP_MS = slowStep;
    const pids = server.workers.map((w) => w.pid);
    await server.close();
    expect(pids.filter(alive)).toEqual([]);
  });

  it("runs runs.wait created over HTTP in the worker process, and resumes an approval there", async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => client.runs.wait(null, "city_weather", { input: WEATHER })));
    for (const values of results) expect(JSON.stringify(values)).toMatch(/Beijing/);
    const runs = (await runtimeInternals(server.runtime).runs.list({ limit: 100 })).filter((r) => r.graphId === "city_weather");
    expect(runs.map((r) => r.status)).toEqual(Array(4).fill("SUCCEEDED"));
    const claimed = await Promise.all(runs.map((r) => claimers(server, r.runId)));
    expect(claimed.flat().some((id) => childIds.includes(id))).toBe(true);

    const thread = await client.threads.create();
    const waiting = (await client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT })) as { __interrupt__?: { value: Approval }[] };
    const approval = waiting.__interrupt__?.[0]?.value;
    const right = { action_id: approval?.action_id, args_hash: approval?.args_hash, decision: "approve" };
    const done = (await client.runs.wait(thread.thread_id, "ops_rollback", { command: { resume: right } })) as { messages: { content: string }[] };
    expect(done.messages.at(-1)?.content).toMatch(/Rolled back to/);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run?.status).toBe("success");
    expect(childIds).toContain((await claimers(server, run!.run_id)).at(-1));
  });

  it("joins a background run the worker process executes, and cancels one it is executing", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "city_weather", { input: WEATHER });
    const events: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: "values" })) events.push(part);
    expect(childIds).toContain((await claimers(server, run.run_id))[0]);
    expect(JSON.stringify(events.at(-1)?.data)).toMatch(/Shenzhen/);

    const slow = await client.threads.create();
    const slowRun = await client.runs.create(slow.thread_id, "slow", { input: { steps: [] } });
    await until("step a checkpointed", async () => ((await client.threads.getState<{ steps?: string[] }>(slow.thread_id)).values.steps ?? []).length >= 1);
    expect(childIds).toContain((await claimers(server, slowRun.run_id))[0]);
    await client.runs.cancel(slow.thread_id, slowRun.run_id, true);
    expect((await runtimeInternals(server.runtime).runs.get(slowRun.run_id)).status).toBe("CANCELED");
    expect((await client.runs.get(slow.thread_id, slowRun.run_id)).metadata).toMatchObject({ agentrt_status: "CANCELED" });
  });
});
