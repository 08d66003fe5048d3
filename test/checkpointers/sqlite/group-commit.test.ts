import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";

const dir = mkdtempSync(join(tmpdir(), "agentrt-group-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = { source: "loop" as const, step: 0, parents: {} };
function checkpoint(step: number, values: Record<string, unknown>): Checkpoint {
  const versions = Object.fromEntries(Object.keys(values).map((k) => [k, step + 1]));
  return { v: 4, id: uuid6(step), ts: new Date().toISOString(), channel_values: values, channel_versions: versions, versions_seen: {} };
}
const committed = (path: string) => {
  const other = new Database(path, { readonly: true });
  try {
    return (other.prepare("SELECT count(*) AS n FROM checkpoints").get() as { n: number }).n;
  } finally {
    other.close();
  }
};

describe('SqliteSaver durability: "group"', () => {
  it("commits the puts of one event-loop turn together, and its own reads see them at once", async () => {
    const path = join(dir, "turn.db");
    const saver = SqliteSaver.create({ path, durability: "group" });
    let config = { configurable: { thread_id: "t" } } as { configurable: Record<string, unknown> };
    for (let step = 0; step < 5; step++) {
      config = (await saver.put(config, checkpoint(step, { a: step }), meta, { a: step + 1 })) as typeof config;
    }
    expect(committed(path)).toBe(0);
    await saver.putWrites(config, [["a", 9]], "task");
    expect((await saver.getTuple({ configurable: { thread_id: "t" } }))?.pendingWrites).toEqual([["task", "a", 9]]);
    expect(committed(path)).toBe(5);
    await saver.put(config, checkpoint(5, { a: 5 }), meta, { a: 6 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(committed(path)).toBe(6);
    saver.close();
  });

  it("flushes on close, so a reopened file holds every put", async () => {
    const path = join(dir, "close.db");
    const saver = SqliteSaver.create({ path, durability: "group" });
    await saver.put({ configurable: { thread_id: "c" } }, checkpoint(0, { x: "kept" }), meta, { x: 1 });
    saver.close();
    const reopened = SqliteSaver.create({ path });
    expect((await reopened.getTuple({ configurable: { thread_id: "c" } }))?.checkpoint.channel_values).toEqual({ x: "kept" });
    reopened.close();
  });

  it("rolls a failed batch back whole and reports it on the next call, then keeps working", async () => {
    const path = join(dir, "busy.db");
    const saver = SqliteSaver.create({ path, durability: "group", busyTimeoutMs: 0 });
    const blocker = new Database(path);
    blocker.exec("BEGIN IMMEDIATE");
    const config = await saver.put({ configurable: { thread_id: "b" } }, checkpoint(0, { a: 1 }), meta, { a: 1 });
    await saver.putWrites(config, [["a", 2]], "task");
    await expect(saver.flush()).rejects.toMatchObject({ code: "DB_OPEN_FAILED" });
    blocker.exec("COMMIT");
    blocker.close();
    // flush() learned it; thread b's own next call learns it too, once.
    await expect(saver.getTuple({ configurable: { thread_id: "b" } })).rejects.toMatchObject({ code: "DB_OPEN_FAILED" });
    expect(await saver.getTuple({ configurable: { thread_id: "b" } })).toBeUndefined();
    await saver.put({ configurable: { thread_id: "b" } }, checkpoint(1, { a: 3 }), meta, { a: 2 });
    await saver.flush();
    expect(committed(path)).toBe(1);
    saver.close();
  });

  it("throws a failed batch's error to the next call on each thread it held and to flush(), not to other threads", async () => {
    const path = join(dir, "trigger.db");
    const saver = SqliteSaver.create({ path, durability: "group" });
    saver.db.exec("CREATE TRIGGER refuse_bad BEFORE INSERT ON checkpoints WHEN NEW.thread_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END");
    const on = (thread: string) => ({ configurable: { thread_id: thread } });
    // One turn: thread "bad" fails the batch, so "lost" (same batch) loses its write too.
    const lost = await saver.put(on("lost"), checkpoint(0, { v: "lost" }), meta, { v: 1 });
    await saver.put(on("bad"), checkpoint(1, { v: "bad" }), meta, { v: 2 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(committed(path)).toBe(0);
    // A thread the batch did not hold is not told, and its write commits.
    await saver.put(on("other"), checkpoint(2, { v: "other" }), meta, { v: 3 });
    await expect(saver.getTuple(on("unrelated"))).resolves.toBeUndefined();
    saver.db.exec("DROP TRIGGER refuse_bad");
    // Each thread of the failed batch learns it on its next call (a write or a read), once.
    const refused = { code: "DB_OPEN_FAILED", message: expect.stringMatching(/refused by trigger/) };
    await expect(saver.putWrites(lost, [["v", 1]], "task")).rejects.toMatchObject(refused);
    await expect(saver.getTuple(on("bad"))).rejects.toMatchObject(refused);
    await expect(saver.flush()).rejects.toMatchObject(refused);
    await saver.flush();
    expect(committed(path)).toBe(1);
    expect((await saver.getTuple(on("other")))?.checkpoint.channel_values).toEqual({ v: "other" });
    await saver.put(on("lost"), checkpoint(3, { v: "again" }), meta, { v: 4 });
    expect((await saver.getTuple(on("lost")))?.checkpoint.channel_values).toEqual({ v: "again" });
    expect(await saver.getTuple(on("bad"))).toBeUndefined();
    saver.close();
  });

  it("runs a graph to the same state as the default durability", async () => {
    const State = Annotation.Root({ steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
    const build = (saver: SqliteSaver) =>
      new StateGraph(State)
        .addNode("one", () => ({ steps: ["one"] }))
        .addNode("two", () => ({ steps: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .addEdge("two", END)
        .compile({ checkpointer: saver });
    const group = SqliteSaver.create({ path: join(dir, "graph-group.db"), durability: "group" });
    const plain = SqliteSaver.create({ path: join(dir, "graph-plain.db") });
    const config = { configurable: { thread_id: "g" } };
    await build(group).invoke({ steps: [] }, config);
    await build(plain).invoke({ steps: [] }, config);
    const [a, b] = [await build(group).getState(config), await build(plain).getState(config)];
    expect(a.values).toEqual({ steps: ["one", "two"] });
    expect(a.values).toEqual(b.values);
    let history = 0;
    for await (const _ of build(group).getStateHistory(config)) history += 1;
    expect(history).toBe(4);
    group.close();
    plain.close();
  });

  it("refuses an unknown durability", () => {
    const db = new Database(":memory:");
    expect(() => new SqliteSaver(db, undefined, { durability: "never" as never })).toThrow(/durability/);
    db.close();
  });
});

describe('SqliteSaver durability: "group", reads of other threads', () => {
  it("does not commit a thread's queued writes for a read of another thread, but does for a read of its own", async () => {
    const path = join(dir, "threads.db");
    const saver = SqliteSaver.create({ path, durability: "group" });
    await saver.put({ configurable: { thread_id: "a" } }, checkpoint(0, { v: "a" }), meta, { v: 1 });
    expect(await saver.getTuple({ configurable: { thread_id: "b" } })).toBeUndefined();
    expect(committed(path)).toBe(0);
    const seen: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "a" } })) seen.push(tuple.checkpoint.channel_values);
    expect(seen).toEqual([{ v: "a" }]);
    expect(committed(path)).toBe(1);
    await saver.put({ configurable: { thread_id: "c" } }, checkpoint(1, { v: "c" }), meta, { v: 1 });
    let all = 0;
    for await (const _ of saver.list({})) all += 1;
    expect(all).toBe(2);
    saver.close();
  });

  it("lists a thread's queued checkpoints of a namespace it had none in yet", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "namespaces.db"), durability: "group" });
    await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "" } }, checkpoint(0, { v: "root" }), meta, { v: 1 });
    await saver.flush();
    await saver.put({ configurable: { thread_id: "t", checkpoint_ns: "child:1" } }, checkpoint(1, { v: "child" }), meta, { v: 2 });
    const seen: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "t" } })) seen.push(tuple.checkpoint.channel_values);
    expect(seen).toHaveLength(2);
    expect(seen).toContainEqual({ v: "child" });
    saver.close();
  });
});
