// Streaming from anywhere on PostgreSQL: two `agentrt serve` processes and one `agentrt worker` process on one
// schema. A run created (streamed) on serve A is executed by a worker process and streamed from serve B too: every
// chunk, in order, ids increasing, the same chunks as A's stream and as an in-process stream of the same graph; a
// stream dropped on B mid-run continues on A with Last-Event-ID, with no gap and no duplicate; a run nobody streams
// writes no chunk rows.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestSchema, withClient } from "../helpers/postgres.js";
import { graphEntry, startTestServer, tempProject } from "./harness.js";
import { idsOf, readEvents, type SseEvent } from "./sse-events.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const schema = useTestSchema(import.meta.url);
const spawned: ChildProcess[] = [];
const project = tempProject({ city_weather: graphEntry("city_weather") });
const MODES = ["values", "updates", "messages-tuple", "custom"];
const INPUT = { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] };

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, AGENTRT_CONFIG: project.config, AGENTRT_SIM_LATENCY_MS: "150" };
  for (const name of ["OPENAI_API_KEY", "AGENTRT_API_KEY", "AGENTRT_DATABASE_URL", "AGENTRT_SERVE_WORKERS"]) delete env[name];
  return env;
}

/** `agentrt serve --db URL --port 0 --json --workers 1`; its URL once it listens, and its pid. */
async function serve(): Promise<{ url: string; pid: number }> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "serve", "--port", "0", "--db", schema.url, "--json", "--workers", "1"], {
    cwd: root, env: childEnv(), stdio: ["ignore", "pipe", "inherit"],
  });
  spawned.push(child);
  for await (const line of createInterface({ input: child.stdout })) return { url: (JSON.parse(line) as { url: string }).url, pid: child.pid ?? 0 };
  throw new Error("agentrt serve exited before listening");
}

let urlA = "";
let urlB = "";
beforeAll(async () => {
  const [a, b] = await Promise.all([serve(), serve()]);
  [urlA, urlB] = [a.url, b.url];
  spawned.push(spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "worker", "--db", schema.url, "--concurrency", "4"], {
    cwd: root, env: childEnv(), stdio: ["ignore", "ignore", "inherit"],
  }));
  // Until each serve's worker process is ready, the serve itself would execute them: wait for that to stop.
  for (const { url, pid } of [a, b]) await untilPoolExecutes(url, pid);
}, 180_000);
afterAll(() => {
  for (const child of spawned) if (child.exitCode === null) child.kill("SIGKILL");
});

const post = (url: string, path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${url}${path}`, { method: "POST", signal, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function newThread(url: string): Promise<string> {
  return ((await (await post(url, "/threads", {})).json()) as { thread_id: string }).thread_id;
}

/** Who executed the run: the actor of its last claim. */
async function executor(runId: string): Promise<string> {
  const result = await withClient((c) => c.query(`SELECT actor FROM ${schema.name}.run_events WHERE run_id = $1 AND to_status = 'RUNNING' ORDER BY event_id DESC LIMIT 1`, [runId]));
  return String(result.rows[0]?.actor);
}

/** Lease owners of worker processes: a serve's forked workers, and `agentrt worker`'s (host, pid, suffix). */
const WORKER_PROCESS = /^(serve_\d+_w\d+_\d+|worker_.+)$/;

/**
 * Until the serve's own worker process has executed one of its runs. A run executed by another worker process
 * (the stand-alone worker, the other serve's) proves nothing of this serve: with its pool not ready yet, it
 * launches a new run here, in its own runtime (a `rt_` lease owner), and any idle worker process may still
 * claim it first. Three runs a round, since three worker processes compete for them.
 */
async function untilPoolExecutes(url: string, pid: number): Promise<void> {
  const own = new RegExp(`^serve_${pid}_w\\d+_\\d+$`);
  for (let round = 0; round < 30; round++) {
    const runs = await Promise.all([1, 2, 3].map(async () => {
      const threadId = await newThread(url);
      const run = (await (await post(url, `/threads/${threadId}/runs`, { assistant_id: "city_weather", input: { messages: [{ role: "user", content: "Weather for Tokyo" }] } })).json()) as { run_id: string };
      await fetch(`${url}/threads/${threadId}/runs/${run.run_id}/join`);
      return run.run_id;
    }));
    for (const runId of runs) if (own.test(await executor(runId))) return;
  }
  throw new Error(`${url}: its own worker process never executed its runs`);
}

const streamOn = (url: string, threadId: string, abort?: AbortController) =>
  post(url, `/threads/${threadId}/runs/stream`, { assistant_id: "city_weather", stream_mode: MODES, input: INPUT }, abort?.signal);

const joinOn = (url: string, threadId: string, runId: string, lastEventId?: string, abort?: AbortController) =>
  fetch(`${url}/threads/${threadId}/runs/${runId}/stream?${MODES.map((m) => `stream_mode=${m}`).join("&")}`, {
    signal: abort?.signal, headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId },
  });

const runIdOf = (response: Response) => /\/runs\/([^/]+)$/.exec(response.headers.get("content-location") ?? "")?.[1] ?? "";
const chunks = (events: SseEvent[]) => events.filter((e) => e.id !== undefined);

/** What an in-process stream and a cross-process one must share (ids, message ids and timestamps differ). */
function digest(events: SseEvent[]): { counts: Record<string, number>; aiText: string[]; nodes: string[]; answer: unknown } {
  const counts: Record<string, number> = {};
  const text = new Map<string, string>();
  const nodes: string[] = [];
  let answer: unknown;
  for (const e of chunks(events)) {
    counts[e.event] = (counts[e.event] ?? 0) + 1;
    const data = JSON.parse(e.data) as unknown;
    if (e.event === "messages") {
      const [message] = data as [{ type: string; id: string; content: string }];
      if (message.type === "ai") text.set(message.id, (text.get(message.id) ?? "") + message.content);
    } else if (e.event === "updates") nodes.push(...Object.keys(data as object));
    else if (e.event === "values") answer = (data as { messages: { content: unknown }[] }).messages.at(-1)?.content;
  }
  return { counts, aiText: [...text.values()], nodes: nodes.sort(), answer };
}

async function chunkRows(runId: string): Promise<{ chunks: number; watched: number }> {
  return withClient(async (c) => {
    const n = await c.query(`SELECT count(*)::int AS n FROM ${schema.name}.run_stream_chunks WHERE run_id = $1`, [runId]);
    const w = await c.query(`SELECT count(*)::int AS n FROM ${schema.name}.run_streams WHERE run_id = $1`, [runId]);
    return { chunks: Number(n.rows[0]?.n), watched: Number(w.rows[0]?.n) };
  });
}

describe("streaming from anywhere on PostgreSQL", () => {
  it("a run streamed on serve A and executed by a worker process is streamed from serve B: every chunk, in order", async () => {
    const threadId = await newThread(urlA);
    const created = await streamOn(urlA, threadId);
    const runId = runIdOf(created);
    // Joined on B at once: from the first chunk (Last-Event-ID -1), and live (from when it listens).
    const [onA, fromStartOnB, liveOnB] = await Promise.all([
      readEvents(created), joinOn(urlB, threadId, runId, "-1").then((r) => readEvents(r)), joinOn(urlB, threadId, runId).then((r) => readEvents(r)),
    ]);
    expect(WORKER_PROCESS.test(await executor(runId))).toBe(true);
    const ids = idsOf(onA);
    expect(ids.length).toBeGreaterThan(20);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(chunks(onA).map((e) => e.event)).toContain("messages");
    // B got exactly A's chunks, numbered alike; the live join a suffix of them, ids increasing.
    expect(chunks(fromStartOnB)).toEqual(chunks(onA));
    const live = chunks(liveOnB);
    expect(live.length).toBeGreaterThan(0);
    expect(live).toEqual(chunks(onA).slice(chunks(onA).length - live.length));
    expect((await chunkRows(runId)).chunks).toBe(ids.length);

    // The same graph streamed in process on SQLite gives the same chunks (message tokens, node updates, answer).
    const local = await startTestServer({}, { city_weather: graphEntry("city_weather") });
    try {
      const inProcess = await readEvents(await streamOn(local.server.url, await newThread(local.server.url)));
      expect(digest(onA)).toEqual(digest(inProcess));
      expect(digest(onA).aiText.length).toBe(2);
    } finally {
      await local.server.close();
    }
  }, 120_000);

  it("a stream dropped on serve B mid-run goes on on serve A with Last-Event-ID: no gap, no duplicate", async () => {
    const threadId = await newThread(urlA);
    const created = await streamOn(urlA, threadId);
    const runId = runIdOf(created);
    const reference = readEvents(created);
    const abort = new AbortController();
    const before = await readEvents(await joinOn(urlB, threadId, runId, "-1", abort), (events) => idsOf(events).length === 5, abort);
    const statusAtDrop = ((await (await fetch(`${urlA}/threads/${threadId}/runs/${runId}`)).json()) as { status: string }).status;
    const last = idsOf(before).at(-1);
    const after = await readEvents(await joinOn(urlA, threadId, runId, String(last)));
    const all = await reference;
    expect(statusAtDrop).not.toBe("success");
    expect(idsOf(after).length).toBeGreaterThan(0);
    expect([...chunks(before), ...chunks(after)]).toEqual(chunks(all));
    expect([...idsOf(before), ...idsOf(after)]).toEqual(idsOf(all).map((_, i) => i + 1));
  }, 120_000);

  it("a background run created stream_resumable is published from its first chunk: a join on B after it ended gets it whole", async () => {
    const threadId = await newThread(urlA);
    const created = (await (await post(urlA, `/threads/${threadId}/runs`, { assistant_id: "city_weather", input: INPUT, stream_mode: MODES, stream_resumable: true })).json()) as { run_id: string };
    // Joined only once it has ended: nothing but its publication from the start can give B its chunks.
    await fetch(`${urlA}/threads/${threadId}/runs/${created.run_id}/join`);
    const events = await readEvents(await joinOn(urlB, threadId, created.run_id, "-1"));
    const ids = idsOf(events);
    expect(ids[0]).toBe(1);
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0))).toBe(true);
    const seen = digest(events);
    expect(seen.nodes.filter((n) => n === "tools").length).toBeGreaterThan(0);
    expect(String(seen.answer)).toContain("Shenzhen");
    expect(WORKER_PROCESS.test(await executor(created.run_id))).toBe(true);
    expect((await chunkRows(created.run_id)).chunks).toBe(ids.at(-1));
  }, 120_000);

  it("a run nobody streams writes no chunk rows", async () => {
    const threadId = await newThread(urlA);
    const response = await post(urlA, `/threads/${threadId}/runs/wait`, { assistant_id: "city_weather", input: INPUT });
    const runId = runIdOf(response);
    expect(((await response.json()) as { messages: unknown[] }).messages.length).toBeGreaterThan(3);
    expect(WORKER_PROCESS.test(await executor(runId))).toBe(true);
    expect(await chunkRows(runId)).toEqual({ chunks: 0, watched: 0 });
  }, 120_000);
});
