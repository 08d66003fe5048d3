import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";

const dir = mkdtempSync(join(tmpdir(), "agentrt-tuple-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = { source: "loop" as const, step: 0, parents: {} };
const latest = { configurable: { thread_id: "t" } };
function checkpoint(step: number, values: Record<string, unknown>): Checkpoint {
  const versions = Object.fromEntries(Object.keys(values).map((k) => [k, step + 1]));
  return { v: 4, id: uuid6(step), ts: new Date().toISOString(), channel_values: values, channel_versions: versions, versions_seen: {} };
}

describe("SqliteSaver getTuple cache", () => {
  it("sees a put and putWrites made by another connection to the same file", async () => {
    const path = join(dir, "two.db");
    const reader = SqliteSaver.create({ path });
    const writer = SqliteSaver.create({ path });
    const first = await writer.put(latest, checkpoint(0, { a: [1] }), meta, { a: 1 });
    expect((await reader.getTuple(latest))?.checkpoint.channel_values).toEqual({ a: [1] });
    await writer.putWrites(first, [["a", [2]]], "task");
    expect((await reader.getTuple(latest))?.pendingWrites).toEqual([["task", "a", [2]]]);
    await writer.put(first, checkpoint(1, { a: [3] }), meta, { a: 2 });
    expect((await reader.getTuple(latest))?.checkpoint.channel_values).toEqual({ a: [3] });
    await writer.deleteThread("t");
    expect(await reader.getTuple(latest)).toBeUndefined();
    reader.close();
    writer.close();
  });

  it("sees raw SQL writes on its own connection and never hands out shared objects", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "one.db") });
    await saver.put(latest, checkpoint(0, { a: { list: [1] } }), meta, { a: 1 });
    const tuple = await saver.getTuple(latest);
    (tuple?.checkpoint.channel_values.a as { list: number[] }).list.push(99);
    expect((await saver.getTuple(latest))?.checkpoint.channel_values).toEqual({ a: { list: [1] } });
    saver.db.prepare("DELETE FROM checkpoints WHERE thread_id = ?").run("t");
    expect(await saver.getTuple(latest)).toBeUndefined();
    saver.close();
  });
});
