import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import Database from "better-sqlite3";
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

  it("sees another connection's commit after serving the same read from the cache", async () => {
    const path = join(dir, "raw.db");
    const saver = SqliteSaver.create({ path });
    await saver.put(latest, checkpoint(0, { a: [1] }), meta, { a: 1 });
    await saver.getTuple(latest);
    expect((await saver.getTuple(latest))?.metadata).toEqual(meta);
    const other = new Database(path);
    other.prepare("UPDATE checkpoints SET metadata = ? WHERE thread_id = 't'").run(JSON.stringify({ ...meta, step: 7 }));
    expect((await saver.getTuple(latest))?.metadata).toEqual({ ...meta, step: 7 });
    other.close();
    saver.close();
  });

  it("keeps nothing read inside a transaction that is then rolled back", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "rollback.db") });
    await saver.put(latest, checkpoint(0, { a: [1] }), meta, { a: 1 });
    saver.db.exec("BEGIN");
    saver.db.prepare("DELETE FROM checkpoints WHERE thread_id = 't'").run();
    expect(await saver.getTuple(latest)).toBeUndefined();
    saver.db.exec("ROLLBACK");
    expect((await saver.getTuple(latest))?.checkpoint.channel_values).toEqual({ a: [1] });
    saver.close();
  });

  it("gives every read its own tuple: changing any part of one changes no later read", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "mutate.db") });
    const values = {
      plain: { list: [1, { deep: "x" }] },
      messages: [new HumanMessage({ content: "hi", id: "h" }), new AIMessage({ content: "", id: "a", tool_calls: [{ id: "c", name: "f", args: { x: 1 } }] })],
    };
    const stored = await saver.put(latest, checkpoint(0, values), { ...meta, parents: { "": "p" } }, { plain: 1, messages: 1 });
    await saver.putWrites(stored, [["plain", { w: [1] }]], "task");
    const pristine = await saver.getTuple(latest);
    for (let read = 0; read < 3; read++) {
      const tuple = await saver.getTuple(latest);
      expect(tuple).toEqual(pristine);
      if (tuple === undefined) throw new Error("no tuple");
      const { checkpoint: cp } = tuple;
      ((cp.channel_values.plain as { list: unknown[] }).list[1] as { deep: string }).deep = "changed";
      const [, ai] = cp.channel_values.messages as [HumanMessage, AIMessage];
      expect(AIMessage.isInstance(ai)).toBe(true);
      ai.tool_calls?.push({ id: "d", name: "g", args: {} });
      (ai.tool_calls?.[0]?.args as { x: number }).x = 2;
      cp.channel_versions.plain = 99;
      cp.versions_seen.x = { y: 1 };
      (tuple.metadata as { parents: Record<string, string> }).parents[""] = "changed";
      (tuple.pendingWrites?.[0]?.[2] as { w: number[] }).w.push(2);
      tuple.pendingWrites?.push(["other", "c", 1]);
      (tuple.config.configurable as Record<string, unknown>).checkpoint_id = "changed";
    }
    const again = await saver.getTuple(latest);
    expect(again).toEqual(pristine);
    expect((again?.checkpoint.channel_values.messages as AIMessage[])[1]?.tool_calls).toEqual([{ id: "c", name: "f", args: { x: 1 } }]);
    saver.close();
  });
});
