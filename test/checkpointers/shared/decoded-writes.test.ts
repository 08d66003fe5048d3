/** The decoded-write cache (decoded-writes.ts): keyed by what was stored, copies handed out unless shared. */
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { DecodedWrites } from "../../../checkpointers/shared/decoded-writes.js";

const text = JSON.stringify({ content: "x".repeat(200) });
const fails = () => {
  throw new Error("decoded again");
};

describe("DecodedWrites", () => {
  it("decodes the same stored bytes once and hands every reader its own copy", async () => {
    const cache = new DecodedWrites();
    const message = () => [new AIMessage({ content: "y".repeat(200), tool_calls: [{ id: "c", name: "f", args: { n: 1 } }] })];
    const first = (await cache.load("json", text, message)) as AIMessage[];
    first[0]!.tool_calls![0]!.args.n = 2;
    first.push(new AIMessage("extra"));
    const second = (await cache.load("json", text, fails)) as AIMessage[];
    expect(second).toEqual(message());
    expect(AIMessage.isInstance(second[0])).toBe(true);
    expect(second[0]!.tool_calls).toBe((second[0]!.lc_kwargs as { tool_calls: unknown }).tool_calls);
  });

  it("shares its own value when asked (a read-only view), and copies for the others", async () => {
    const cache = new DecodedWrites();
    await cache.load("json", text, () => ({ items: [1] }));
    const a = await cache.load("json", text, fails, true);
    expect(await cache.load("json", text, fails, true)).toBe(a);
    const copy = await cache.load("json", text, fails);
    expect(copy).not.toBe(a);
    expect(copy).toEqual(a);
  });

  it("decodes again, and keeps the new decode, when a shared reader changed the kept tree's shape", async () => {
    const cache = new DecodedWrites();
    await cache.load("json", text, () => ({ items: [{ n: 1 }] }));
    const shared = (await cache.load("json", text, fails, true)) as { items: unknown[] };
    shared.items.push({ added: true });
    let decoded = 0;
    const decode = () => {
      decoded += 1;
      return { items: [{ n: 1 }] };
    };
    expect(await cache.load("json", text, decode)).toEqual({ items: [{ n: 1 }] });
    expect(await cache.load("json", text, fails)).toEqual({ items: [{ n: 1 }] });
    expect(decoded).toBe(1);
  });

  it("tells values apart by type, by bytes and by text versus bytes", async () => {
    const cache = new DecodedWrites();
    const bytes = Buffer.from(text, "utf8");
    expect(await cache.load("json", text, () => "text")).toBe("text");
    expect(await cache.load("msgpack", text, () => "other type")).toBe("other type");
    expect(await cache.load("json", bytes, () => "bytes")).toBe("bytes");
    expect(await cache.load("json", Buffer.from(`${text} `, "utf8"), () => "longer")).toBe("longer");
    expect(await cache.load("json", bytes, fails)).toBe("bytes");
    expect(await cache.load("json", text, fails)).toBe("text");
  });

  it("decodes small values every time and keeps no value it cannot copy", async () => {
    const cache = new DecodedWrites();
    let decoded = 0;
    const small = () => ++decoded;
    await cache.load("json", "{}", small);
    await cache.load("json", "{}", small);
    expect(decoded).toBe(2);
    const dates = () => ({ at: new Date(++decoded) });
    await cache.load("json", text, dates);
    await cache.load("json", text, dates);
    expect(decoded).toBe(4);
  });
});
