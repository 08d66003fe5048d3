/** Copies of cached decoded trees: which copy a tree gets, and that each keeps what a reader can observe. */
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { copyKind, copyOf } from "../../../checkpointers/shared/deep-copy.js";

describe("deep copies of decoded values", () => {
  it("copies JSON data plainly and deeply", () => {
    const value = JSON.parse('{"a":[1,{"b":null}],"c":"x","d":true}') as { a: [number, { b: null }] };
    expect(copyKind(value)).toBe("plain");
    const copy = copyOf(value, "plain") as typeof value;
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
  });

  it("keeps prototypes and shared references of messages", () => {
    const shared = { k: 1 };
    const message = new AIMessage({ content: "hi", tool_calls: [{ id: "c", name: "f", args: {} }] });
    const value = { messages: [message], twice: [shared, shared] };
    expect(copyKind(value)).toBe("prototypes");
    const copy = copyOf(value, "prototypes") as typeof value;
    expect(AIMessage.isInstance(copy.messages[0])).toBe(true);
    expect(copy.messages[0]).not.toBe(message);
    expect(copy.messages[0]?.tool_calls).toEqual(message.tool_calls);
    expect(copy.twice[0]).toBe(copy.twice[1]);
    expect(copy.twice[0]).not.toBe(shared);
  });

  it("refuses what no copy here keeps faithfully", () => {
    expect(copyKind({ when: new Date(0) })).toBeNull();
    expect(copyKind({ bytes: new Uint8Array(2) })).toBeNull();
    expect(copyKind({ map: new Map() })).toBeNull();
    expect(copyKind(JSON.parse('{"__proto__":{"x":1}}'))).toBeNull();
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(copyKind(cycle)).toBeNull();
  });

  it("keeps null-prototype objects out of the plain copy", () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    expect(copyKind(bare)).toBe("prototypes");
    expect(Object.getPrototypeOf(copyOf(bare, "prototypes"))).toBeNull();
  });
});
