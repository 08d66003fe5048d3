import { Send } from "@langchain/langgraph";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { openDatabase } from "../../../src/db/index.js";
import { plainJsonText } from "../../../checkpointers/shared/codec.js";

const serde = new JsonPlusSerializer();
const serdeText = async (value: unknown) => new TextDecoder().decode((await serde.dumpsTyped(value))[1]);

describe("the codec's plain-JSON shortcut", () => {
  it("writes exactly what JsonPlusSerializer writes for plain JSON trees", async () => {
    const plain: unknown[] = [
      null, true, 0, -0, 1.5, Number.NaN, "", "héllo \u{1F600}", "\ud800 lone", [], {}, [1, "a", null, [{ b: [] }]],
      { nested: { deep: [{ a: 1 }, { lc: 1, type: "not a class" }] }, "__proto__x": 2 }, Object.assign(Object.create(null) as object, { a: 1 }),
    ];
    for (const value of plain) {
      expect(plainJsonText(value), JSON.stringify(value)).toBe(await serdeText(value));
    }
  });

  it("leaves to the serde every value its replacer would change", async () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    // eslint-disable-next-line no-sparse-arrays
    const others: unknown[] = [undefined, [1, undefined], [1, , 3], { a: undefined }, new Uint8Array([1]), new Map([[1, 2]]), new Set([1]), new Date(0),
      new Error("x"), /re/g, 10n, () => 1, new HumanMessage("hi"), new Send("node", { a: 1 }), { lg_name: "Send", node: "n", args: 1, extra: 2 }, cyclic,
      { toJSON: () => "x" }];
    for (const value of others) expect(plainJsonText(value)).toBeUndefined();
    // And the serde's own output for such values still differs from plain JSON.stringify, which is why they are left to it.
    expect(await serdeText([1, undefined])).not.toBe(JSON.stringify([1, undefined]));
  });

  it("stores plain JSON as TEXT and reads it back, values and writes alike", async () => {
    const db = openDatabase(":memory:");
    const saver = new SqliteSaver(db);
    const config = await saver.put(
      { configurable: { thread_id: "t" } },
      { v: 4, id: "1", ts: "2026-01-01T00:00:00Z", channel_values: { a: { list: [1, 2] }, m: [new HumanMessage("hi")] }, channel_versions: { a: 1, m: 1 }, versions_seen: {} },
      { source: "input", step: -1, parents: {} },
      { a: 1, m: 1 },
    );
    await saver.putWrites(config, [["a", { x: "y" }]], "task");
    // a is small plain JSON: kept inline, as JSON text in its checkpoint row (schema v3); m goes through the serde.
    expect(db.prepare("SELECT vals FROM checkpoints").pluck().get()).toBe('[{"list":[1,2]}]');
    const kinds = db.prepare("SELECT channel, typeof(value) AS kind FROM checkpoint_blobs ORDER BY channel").all();
    expect(kinds).toEqual([{ channel: "m", kind: "blob" }]);
    expect(db.prepare("SELECT typeof(value) AS kind FROM checkpoint_writes").get()).toEqual({ kind: "text" });
    const tuple = await saver.getTuple({ configurable: { thread_id: "t" } });
    expect(tuple?.checkpoint.channel_values.a).toEqual({ list: [1, 2] });
    expect(tuple?.checkpoint.channel_values.m).toEqual([new HumanMessage("hi")]);
    expect(tuple?.pendingWrites).toEqual([["task", "a", { x: "y" }]]);
    db.close();
  });
});
