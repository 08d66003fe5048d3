import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HumanMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { checkpoint, deltaMessagesGraph, describeSaverConformance } from "../conformance/saver.js";
import { countRows } from "./stored-values.js";

const dir = mkdtempSync(join(tmpdir(), "agentrt-saver-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = (saver: SqliteSaver, table: string, where = "1") => countRows(saver.db, table, where);

describeSaverConformance("SqliteSaver", async () => {
  const saver = SqliteSaver.create({ path: ":memory:" });
  return { saver, count: async (table, where) => count(saver, table, where), close: async () => saver.close() };
});

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

  it("prunes a MessagesDeltaValue thread safely: the seed its kept checkpoints replay from survives", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "delta.db") });
    const graph = deltaMessagesGraph(saver);
    const config = { configurable: { thread_id: "d" } };
    const expected = [0, 1, 2, 3, 4, 5, 6].map((i) => `hello ${i}`);
    for (let turn = 0; turn < expected.length; turn++) await graph.invoke({ messages: [] }, config);
    const before = count(saver, "checkpoints");
    const deleted = await saver.prune({ threadId: "d", keepLast: 2 });
    expect(deleted).toBeGreaterThan(0);
    expect(count(saver, "checkpoints")).toBeGreaterThan(2);
    expect(count(saver, "checkpoints")).toBe(before - deleted);
    const after = await graph.getState(config);
    expect(after.values.messages.map((m: HumanMessage) => m.content)).toEqual(expected);
    saver.close();
  });
});
