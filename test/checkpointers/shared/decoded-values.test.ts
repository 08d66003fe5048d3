/** The decoded-value cache: copies handed out, and its byte budget kept true when two reads miss the same value at once. */
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
