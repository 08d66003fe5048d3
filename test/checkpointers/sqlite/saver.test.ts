import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, BaseCheckpointSaver, DeltaValue, END, MessagesDeltaValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";

const dir = mkdtempSync(join(tmpdir(), "agentrt-saver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function checkpoint(values: Record<string, unknown>, versions: Record<string, number>): Checkpoint {
  return { v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: values, channel_versions: versions, versions_seen: {} };
}

const count = (saver: SqliteSaver, table: string, where = "1") =>
  (saver.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;

describe("SqliteSaver", () => {
  it("keeps checkpoints in a file across instances", async () => {
    const path = join(dir, "file.db");
    const first = SqliteSaver.fromConnString(path);
    const config = await first.put({ configurable: { thread_id: "t" } }, checkpoint({ a: [1, 2] }, { a: 1 }), { source: "input", step: -1, parents: {} }, { a: 1 });
    await first.putWrites(config, [["a", [3]]], "task");
    first.close();
    const second = SqliteSaver.create({ path });
    const tuple = await second.getTuple({ configurable: { thread_id: "t" } });
    expect(tuple?.checkpoint.channel_values).toEqual({ a: [1, 2] });
    expect(tuple?.pendingWrites).toEqual([["task", "a", [3]]]);
    expect(second.db.pragma("journal_mode", { simple: true })).toBe("wal");
    second.close();
  });

  it("works on :memory:", async () => {
    const saver = SqliteSaver.fromConnString(":memory:");
    await saver.put({ configurable: { thread_id: "m" } }, checkpoint({ x: "y" }, { x: 1 }), { source: "input", step: -1, parents: {} }, { x: 1 });
    expect((await saver.getTuple({ configurable: { thread_id: "m" } }))?.checkpoint.channel_values).toEqual({ x: "y" });
    saver.close();
  });

  it("stores an unchanged channel once, however many checkpoints reference it", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const big = "x".repeat(10_000);
    let config = { configurable: { thread_id: "t" } } as { configurable: Record<string, unknown> };
    for (let step = 1; step <= 10; step++) {
      const versions = { big: 1, counter: step };
      config = (await saver.put(config, checkpoint({ big, counter: step }, versions), { source: "loop", step, parents: {} }, step === 1 ? versions : { counter: step })) as typeof config;
      expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ big, counter: step });
    }
    expect(count(saver, "checkpoint_blobs", "channel = 'big'")).toBe(1);
    expect(count(saver, "checkpoint_blobs", "channel = 'counter'")).toBe(10);
    saver.close();
  });

  it("filters list() by metadata in SQL, with before and limit", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const ids: string[] = [];
    for (let step = 0; step < 6; step++) {
      const cp = checkpoint({}, {});
      ids.push(cp.id);
      await saver.put({ configurable: { thread_id: "f" } }, cp, { source: step % 2 === 0 ? "loop" : "update", step, parents: {}, user: { name: step < 3 ? "ann" : "bob" }, flag: step === 4 } as never, {});
    }
    const list = async (filter: Record<string, unknown>, extra: { limit?: number; before?: string } = {}) => {
      const found: unknown[] = [];
      const before = extra.before === undefined ? undefined : { configurable: { checkpoint_id: extra.before } };
      for await (const tuple of saver.list({ configurable: { thread_id: "f" } }, { filter, limit: extra.limit, before })) found.push(tuple.metadata?.step);
      return found;
    };
    expect(await list({ source: "loop" })).toEqual([4, 2, 0]);
    expect(await list({ source: "loop", step: 2 })).toEqual([2]);
    expect(await list({ step: "2" })).toEqual([]);
    expect(await list({ user: { name: "bob" } })).toEqual([5, 4, 3]);
    expect(await list({ flag: true })).toEqual([4]);
    expect(await list({ missing: undefined }, { limit: 2 })).toEqual([5, 4]);
    expect(await list({}, { before: ids[3] })).toEqual([2, 1, 0]);
    saver.close();
  });

  it("deletes one thread and nothing else", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    for (const thread of ["keep", "drop"]) {
      const config = await saver.put({ configurable: { thread_id: thread } }, checkpoint({ v: thread }, { v: 1 }), { source: "input", step: -1, parents: {} }, { v: 1 });
      await saver.putWrites(config, [["v", "w"]], "task");
    }
    await saver.deleteThread("drop");
    for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) {
      expect(count(saver, table, "thread_id = 'drop'")).toBe(0);
      expect(count(saver, table, "thread_id = 'keep'")).toBe(1);
    }
    saver.close();
  });

  it("copies a thread's checkpoints, values and pending writes to a new thread id", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const config = await saver.put({ configurable: { thread_id: "src" } }, checkpoint({ v: "x" }, { v: 1 }), { source: "input", step: -1, parents: {} }, { v: 1 });
    await saver.putWrites(config, [["v", "w"]], "task");
    saver.copyThread("src", "dst");
    const [original, copy] = await Promise.all([saver.getTuple({ configurable: { thread_id: "src" } }), saver.getTuple({ configurable: { thread_id: "dst" } })]);
    expect(copy?.checkpoint).toEqual(original?.checkpoint);
    expect(copy?.pendingWrites).toEqual(original?.pendingWrites);
    expect(copy?.config.configurable?.thread_id).toBe("dst");
    // A second copy onto the same id is refused whole: nothing half-copied.
    expect(() => saver.copyThread("src", "dst")).toThrow();
    for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) expect(count(saver, table, "thread_id = 'dst'")).toBe(1);
    saver.close();
  });

  it("prunes a thread to its last K checkpoints, keeping their values whole", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    let config = { configurable: { thread_id: "p" } } as { configurable: Record<string, unknown> };
    for (let step = 1; step <= 20; step++) {
      const versions = { stable: 1, counter: step };
      config = (await saver.put(config, checkpoint({ stable: "s", counter: step }, versions), { source: "loop", step, parents: {} }, step === 1 ? versions : { counter: step })) as typeof config;
      await saver.putWrites(config, [["counter", step]], `t${step}`);
    }
    expect(await saver.prune({ threadId: "p", keepLast: 5 })).toBe(15);
    const steps: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "p" } })) {
      steps.push(tuple.checkpoint.channel_values.counter);
      expect(tuple.checkpoint.channel_values.stable).toBe("s");
    }
    expect(steps).toEqual([20, 19, 18, 17, 16]);
    expect(count(saver, "checkpoint_blobs", "channel = 'counter'")).toBe(5);
    expect(count(saver, "checkpoint_writes")).toBe(5);
    await expect(saver.prune({ threadId: "p", keepLast: 0 })).rejects.toThrow(/keepLast/);
    saver.close();
  });

  it("rebuilds MessagesDeltaValue state from SQL history, identical to the base walk, and prunes it safely", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "delta.db") });
    // Snapshot every 2 updates so the thread has seeds to find (the default is every 100).
    const messages = new DeltaValue(MessagesDeltaValue.valueSchema, {
      inputSchema: MessagesDeltaValue.inputSchema,
      reducer: MessagesDeltaValue.reducer,
      snapshotFrequency: 2,
    });
    const State = new StateSchema({ messages });
    const graph = new StateGraph(State)
      .addNode("say", (state) => ({ messages: [new HumanMessage({ id: `m${state.messages.length}`, content: `hello ${state.messages.length}` })] }))
      .addEdge(START, "say")
      .addEdge("say", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "d" } };
    const expected = [0, 1, 2, 3, 4, 5, 6].map((i) => `hello ${i}`);
    for (let turn = 0; turn < expected.length; turn++) await graph.invoke({ messages: [] }, config);
    const state = await graph.getState(config);
    expect(state.values.messages.map((m: HumanMessage) => m.content)).toEqual(expected);

    const latest = (await saver.getTuple(config))!.config;
    const ours = await saver.getDeltaChannelHistory({ config: latest, channels: ["messages"] });
    const walked = await BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(saver, { config: latest, channels: ["messages"] });
    expect(ours).toEqual(walked);
    expect(ours.messages?.writes.length).toBeGreaterThan(0);

    const before = count(saver, "checkpoints");
    const deleted = await saver.prune({ threadId: "d", keepLast: 2 });
    expect(deleted).toBeGreaterThan(0);
    // The seed ancestor the kept checkpoints replay from survived the prune.
    expect(count(saver, "checkpoints")).toBeGreaterThan(2);
    expect(count(saver, "checkpoints")).toBe(before - deleted);
    const after = await graph.getState(config);
    expect(after.values.messages.map((m: HumanMessage) => m.content)).toEqual(expected);
    saver.close();
  });

  it("keeps a forked branch and the original apart (versions never collide)", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const State = Annotation.Root({ items: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
    const graph = new StateGraph(State)
      .addNode("add", () => ({ items: ["node"] }))
      .addEdge(START, "add")
      .addEdge("add", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "fork" } };
    await graph.invoke({ items: ["first"] }, config);
    await graph.invoke({ items: ["second"] }, config);
    const original = await graph.getState(config);
    expect(original.values.items).toEqual(["first", "node", "second", "node"]);

    // Fork from step 0 (items = ["first"]): with counter versions the fork's next "items" version
    // would be the one the original branch used for ["first", "node"], and the fork would read that.
    let stepZero: RunnableConfig | undefined;
    for await (const snapshot of graph.getStateHistory(config)) if (snapshot.metadata?.step === 0) stepZero = snapshot.config;
    const forked = await graph.updateState(stepZero!, { items: ["forked"] });
    expect((await graph.getState(forked)).values.items).toEqual(["first", "forked"]);
    expect((await graph.getState(original.config)).values.items).toEqual(["first", "node", "second", "node"]);
    saver.close();
  });
});
