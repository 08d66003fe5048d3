// The chunk log on PostgreSQL: appends numbered after the run's last chunk and read back in order; another process
// (another pool and LISTEN connection) hears watches and chunks by NOTIFY; the sweep drops what rested before the
// cutoff only; an execution's publication batches its chunks (never a statement per token) and one nobody watches
// writes nothing; a feed hands a reconnecting listener its backlog and a live one only what follows.
import { afterAll, describe, expect, it } from "vitest";
import { parseDatabaseTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import type { RunRecord } from "../../src/runs/index.js";
import type { StreamChunk } from "../../src/runtime/index.js";
import { ChunkFeed } from "../../src/streams/chunk-feed.js";
import { ChunkPublisher } from "../../src/streams/chunk-publisher.js";
import { PostgresChunkLog } from "../../src/streams/postgres-chunk-log.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const opened: PostgresDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

function open(): { db: PostgresDatabase; log: PostgresChunkLog } {
  const target = parseDatabaseTarget(schema.url);
  if (target.kind !== "postgres") throw new Error(`not a PostgreSQL target: ${schema.url}`);
  const db = new PostgresDatabase(target);
  opened.push(db);
  return { db, log: new PostgresChunkLog(db) };
}

const token = (text: string) => ({ mode: "messages", payload: [{ type: "ai", content: text }, {}] });

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`never: ${what}`);
}

/** A run record as the publisher reads it (only its id and config matter). */
const runOf = (runId: string, streamed?: string[]) => ({ runId, config: streamed === undefined ? null : { stream: { modes: streamed } } }) as unknown as RunRecord;

/** A graph whose stream yields `chunks` as given. */
const graphOf = (chunks: unknown[]) => ({
  stream: () => Promise.resolve((async function* () {
    yield* chunks;
  })()),
});

describe("PostgresChunkLog", () => {
  it("numbers appends after the run's last chunk and reads them back in order, from any seq", async () => {
    const { log } = open();
    expect(await log.watch("run_a", ["updates"])).toBe(0);
    expect(await log.append("run_a", [token("a"), token("b")], false)).toBe(2);
    expect(await log.append("run_a", [{ mode: "values", payload: { n: 1 } }], true)).toBe(3);
    expect(await log.watch("run_a", ["debug"])).toBe(3);
    expect((await log.read("run_a", 0, 10)).map((c) => c.seq)).toEqual([1, 2, 3]);
    expect(await log.read("run_a", 1, 1)).toEqual([{ seq: 2, ...token("b") }]);
    expect((await log.watches()).find((w) => w.runId === "run_a")?.modes.slice().sort()).toEqual(["debug", "updates"]);
  });

  it("another process hears watches and committed chunks by NOTIFY", async () => {
    const writer = open().log;
    const reader = open().log;
    const heard: string[] = [];
    const stopChunks = await reader.onChunks({ onChunks: (runId, lastSeq) => heard.push(`${runId}:${lastSeq}`) });
    const stopWatch = await reader.onWatch({ onWatch: (w) => heard.push(`watch ${w.runId}`) });
    await writer.watch("run_b", ["values"]);
    await writer.append("run_b", [token("x")], false);
    await until("both notifications", () => heard.length >= 2);
    expect(heard).toEqual(["watch run_b", "run_b:1"]);
    await stopChunks();
    await stopWatch();
  });

  it("sweeps the chunks and watches of runs whose stream rested before the cutoff, and only those", async () => {
    let now = 1_000_000;
    const { db } = open();
    const log = new PostgresChunkLog(db, { clock: () => now });
    await log.append("run_old", [token("o")], true);
    now += 10_000;
    await log.append("run_new", [token("n")], true);
    await log.append("run_live", [token("l")], false);
    expect(await log.sweep(now - 5000)).toBe(1);
    expect(await log.read("run_old", 0, 10)).toEqual([]);
    expect((await log.read("run_new", 0, 10)).length).toBe(1);
    expect((await log.read("run_live", 0, 10)).length).toBe(1);
    expect((await log.watches()).map((w) => w.runId)).not.toContain("run_old");
  });
});

describe("ChunkPublisher", () => {
  it("publishes a watched run's chunks in a few batched statements, in order, and marks the rest", async () => {
    const { log } = open();
    const appends: number[] = [];
    const counted = Object.assign(Object.create(log) as PostgresChunkLog, {
      append: (runId: string, chunks: readonly { mode: string; payload: unknown }[], rested: boolean) => {
        appends.push(chunks.length);
        return log.append(runId, chunks, rested);
      },
    });
    const publication = new ChunkPublisher(counted).open(runOf("run_p", ["updates"]));
    const raw = [...Array.from({ length: 300 }, (_, i) => ["messages", [{ content: `t${i}` }, {}]]), ["values", { done: true }]];
    for await (const chunk of await publication.stream(graphOf(raw), null, {})) publication.publish(chunk);
    await publication.end();
    const stored = await log.read("run_p", 0, 1000);
    expect(stored.map((c) => c.seq)).toEqual(raw.map((_, i) => i + 1));
    expect((stored[7]?.payload as [{ content: string }])[0].content).toBe("t7");
    expect(appends.reduce((a, b) => a + b, 0)).toBe(301);
    // Never one statement per token: 300 tokens in at most 300/64 full batches, the step's flush and the last one.
    expect(appends.length).toBeLessThanOrEqual(Math.ceil(301 / 64) + 2);
  });

  it("writes nothing for a run nobody watches, and starts publishing when a watch arrives mid-run", async () => {
    const { log } = open();
    const publisher = new ChunkPublisher(log);
    publisher.listen();
    const quiet = publisher.open(runOf("run_quiet"));
    for await (const chunk of await quiet.stream(graphOf([["values", { a: 1 }]]), null, {})) quiet.publish(chunk);
    await quiet.end();
    expect(await log.read("run_quiet", 0, 10)).toEqual([]);
    expect((await log.watches()).map((w) => w.runId)).not.toContain("run_quiet");

    const joined = publisher.open(runOf("run_join"));
    await joined.stream(graphOf([]), null, {});
    joined.publish(["values", { before: true }]);
    // Watched from another process: its NOTIFY turns publishing on here, from the next chunk.
    await open().log.watch("run_join", ["values"]);
    for (let i = 0; i < 200 && (await log.read("run_join", 0, 10)).length === 0; i++) {
      joined.publish(["updates", { after: i }]);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    joined.publish(["values", { last: true }]);
    await joined.end();
    const stored = await log.read("run_join", 0, 1000);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.map((c) => c.payload)).not.toContainEqual({ before: true });
    expect(stored.at(-1)?.payload).toEqual({ last: true });
  });
});

describe("ChunkFeed", () => {
  it("hands a listener from Last-Event-ID its backlog then the live chunks, a live listener only what follows", async () => {
    const { log } = open();
    const feed = new ChunkFeed(open().log);
    await log.append("run_f", [token("1"), token("2"), token("3")], false);
    const replayed: StreamChunk[] = [];
    const live: StreamChunk[] = [];
    const stopReplayed = await feed.subscribe("run_f", (c) => replayed.push(c), ["messages"], 1);
    const stopLive = await feed.subscribe("run_f", (c) => live.push(c), ["messages"]);
    await log.append("run_f", [token("4")], true);
    await until("the live chunk", () => live.length === 1 && replayed.length === 3);
    await feed.caughtUp("run_f");
    expect(replayed.map((c) => c.seq)).toEqual([2, 3, 4]);
    expect(live.map((c) => c.seq)).toEqual([4]);
    expect(live[0]).toEqual({ seq: 4, ...token("4"), wire: true });
    stopReplayed();
    stopLive();
    await feed.close();
  });

  it("a listener that joins behind a read under way for another gets its whole backlog, no gap", async () => {
    const { log } = open();
    await log.append("run_g", [token("1"), token("2"), token("3")], false);
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    // The first read (the live listener's) waits until the second listener has joined and chunk 4 is stored.
    const slowLog = new Proxy(log, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key === "read") return async (...args: Parameters<typeof log.read>) => ((reads++ === 0 ? await gate : undefined), target.read(...args));
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const feed = new ChunkFeed(slowLog);
    const live: StreamChunk[] = [];
    const behind: StreamChunk[] = [];
    const stopLive = await feed.subscribe("run_g", (c) => live.push(c), ["messages"]);
    const stopBehind = await feed.subscribe("run_g", (c) => behind.push(c), ["messages"], 0);
    await log.append("run_g", [token("4")], true);
    release();
    await until("both listeners at chunk 4", () => live.at(-1)?.seq === 4 && behind.at(-1)?.seq === 4);
    expect(behind.map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect(live.map((c) => c.seq)).toEqual([4]);
    stopLive();
    stopBehind();
    await feed.close();
  });
});
