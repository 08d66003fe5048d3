/** The decoded-value cache: copies handed out, and its byte budget kept true when two reads miss the same value at once. */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { DeltaSnapshot } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { DecodedValues } from "../../../checkpointers/shared/decoded-values.js";

const version = (i: number) => `${String(i).padStart(16, "0")}.abcdefg`;
const key = (i: number) => ({ thread: "t", ns: "", channel: "messages", version: version(i) });
/** A stored value of 2 MB: 32 of them fill the cache's 64 MB. */
const stored = "x".repeat(2 * 1024 * 1024);

describe("DecodedValues", () => {
  it("hands every read its own copy of a cached value", async () => {
    const cache = new DecodedValues();
    const first = (await cache.load(key(1), stored, () => ({ items: [1, 2] }))) as { items: number[] };
    first.items.push(3);
    const second = await cache.load(key(1), stored, () => {
      throw new Error("decoded again");
    });
    expect(second).toEqual({ items: [1, 2] });
  });

  it("copies messages whole: what a reader changes, nested fields included, no later reader sees", async () => {
    const cache = new DecodedValues();
    const history = (): BaseMessage[] => [
      new HumanMessage({ content: "restart payments", id: "h1" }),
      new AIMessage({ content: "", id: "a1", tool_calls: [{ name: "restart", args: { service: "payments" }, id: "c1", type: "tool_call" }] }),
      new ToolMessage({ content: "done", tool_call_id: "c1", id: "t1", artifact: { rows: [1, 2] } }),
    ];
    const decode = () => new DeltaSnapshot(history());
    const read = async () => ((await cache.load(key(1), stored, decode)) as DeltaSnapshot<BaseMessage[]>).value;
    const first = await read();
    const ai = first[1] as AIMessage;
    // The copy keeps the shape a message has: its class, and a field and its lc_kwargs twin as one object.
    expect(AIMessage.isInstance(ai)).toBe(true);
    expect(ai.tool_calls).toBe((ai.lc_kwargs as { tool_calls: unknown }).tool_calls);
    // What readers do: assign a field (the HITL middleware's tool_calls), change nested objects, the array itself.
    ai.tool_calls = [];
    (first[0] as HumanMessage).additional_kwargs.edited = true;
    ((first[2] as ToolMessage).artifact as { rows: number[] }).rows.push(3);
    first.pop();
    const second = await read();
    expect(second).toHaveLength(3);
    expect((second[1] as AIMessage).tool_calls).toHaveLength(1);
    expect((second[1] as AIMessage).tool_calls?.[0]?.args).toEqual({ service: "payments" });
    expect(second[0]?.additional_kwargs).toEqual({});
    expect((second[2] as ToolMessage).artifact).toEqual({ rows: [1, 2] });
    // And a copy changed in one of its twins changes both, as the decoded message would.
    (second[1] as AIMessage).tool_calls?.push({ name: "other", args: {}, id: "c2", type: "tool_call" });
    expect(((second[1] as AIMessage).lc_kwargs as { tool_calls: unknown[] }).tool_calls).toHaveLength(2);
  });

  it("copies odd objects as they were: hidden and read-only fields, an own __proto__ key, cycles, a prototype that lists a field", async () => {
    const cache = new DecodedValues();
    /** A message class whose prototype lists a field (for...in would see it too). */
    class Tagged extends HumanMessage {}
    (Tagged.prototype as unknown as Record<string, unknown>).tag = { shared: true };
    const decode = () => {
      const message = new HumanMessage({ content: "hi", id: "h1" });
      Object.defineProperty(message, "hidden", { value: { n: 1 }, enumerable: false, writable: true, configurable: true });
      Object.defineProperty(message, "fixed", { value: "f", enumerable: true, writable: false, configurable: false });
      const parsed = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as Record<string, unknown>;
      const loop: Record<string, unknown> = { name: "loop" };
      loop.self = loop;
      return { message, parsed, loop, tagged: new Tagged({ content: "t", id: "t1" }) };
    };
    type Value = ReturnType<typeof decode>;
    const read = async () => (await cache.load(key(2), stored, decode)) as Value;
    await read();
    const copy = await read();
    expect(HumanMessage.isInstance(copy.message)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(copy.message, "hidden")).toMatchObject({ value: { n: 1 }, enumerable: false });
    expect(Object.getOwnPropertyDescriptor(copy.message, "fixed")).toMatchObject({ value: "f", writable: false });
    (Object.getOwnPropertyDescriptor(copy.message, "hidden")?.value as { n: number }).n = 2;
    expect(Object.getPrototypeOf(copy.parsed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy.parsed, "__proto__")?.value).toEqual({ polluted: true });
    expect(copy.loop.self).toBe(copy.loop);
    expect(copy.tagged).toBeInstanceOf(Tagged);
    expect(Object.hasOwn(copy.tagged, "tag")).toBe(false);
    const again = await read();
    expect(Object.getOwnPropertyDescriptor(again.message, "hidden")?.value).toEqual({ n: 1 });
    expect(again.loop).not.toBe(copy.loop);
  });

  it("counts a value two overlapping misses both stored once, so later values stay cached", async () => {
    const cache = new DecodedValues();
    let decodes = 0;
    const decode = async () => {
      decodes += 1;
      await new Promise((resolve) => setImmediate(resolve));
      return { n: decodes };
    };
    for (let i = 0; i < 40; i++) await Promise.all([cache.load(key(i), stored, decode), cache.load(key(i), stored, decode)]);
    const before = decodes;
    // Counted twice, 40 such values would have filled the byte budget with phantom bytes and evicted all but the last.
    await cache.load(key(38), stored, decode);
    expect(decodes).toBe(before);
  });
});
