/** Copies of cached decoded trees (fresh-copy.ts): deep, faithful, and refused where they could not be. */
import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { DeltaSnapshot } from "@langchain/langgraph-checkpoint";
import { CachedValueChangedError, freshCopy, joinPlans, planCopy } from "../../../checkpointers/shared/fresh-copy.js";

const copyOf = <T>(value: T): T => {
  const plan = planCopy(value);
  if (plan === undefined) throw new Error("no plan");
  return freshCopy(value, plan) as T;
};

describe("fresh copies of decoded values", () => {
  it("copies JSON data deeply", () => {
    const value = JSON.parse('{"a":[1,{"b":null}],"c":"x","d":true}') as { a: [number, { b: null }] };
    const copy = copyOf(value);
    expect(copy).toEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
  });

  it("keeps prototypes and shared references of messages", () => {
    const shared = { k: 1 };
    const message = new AIMessage({ content: "hi", tool_calls: [{ id: "c", name: "f", args: {} }] });
    const value = { messages: [message], twice: [shared, shared] };
    const copy = copyOf(value);
    expect(AIMessage.isInstance(copy.messages[0])).toBe(true);
    expect(copy.messages[0]).not.toBe(message);
    expect(copy.messages[0]?.tool_calls).toEqual(message.tool_calls);
    expect(copy.messages[0]?.tool_calls).not.toBe(message.tool_calls);
    expect(copy.twice[0]).toBe(copy.twice[1]);
    expect(copy.twice[0]).not.toBe(shared);
  });

  it("refuses what it cannot copy faithfully", () => {
    expect(planCopy({ when: new Date(0) })).toBeUndefined();
    expect(planCopy({ bytes: new Uint8Array(2) })).toBeUndefined();
    expect(planCopy({ map: new Map() })).toBeUndefined();
    expect(planCopy({ f: () => 1 })).toBeUndefined();
    // An own accessor may keep state in a closure that every copy would share.
    let calls = 0;
    expect(planCopy(Object.defineProperty({}, "count", { get: () => ++calls, enumerable: true }))).toBeUndefined();
    // A copy takes an array's items only: other own properties, or holes, would be lost.
    expect(planCopy([1, 2])).toBeDefined();
    expect(planCopy(Object.assign([1, 2], { extra: true }))).toBeUndefined();
    expect(planCopy(new Array<number>(3))).toBeUndefined();
  });

  it("copies own keys named like Object.prototype's methods as data", () => {
    const value = JSON.parse('{"toString":"t","constructor":{"name":"c"},"hasOwnProperty":1,"plain":2}') as Record<string, unknown>;
    const copy = copyOf(value);
    expect(Object.getOwnPropertyNames(copy)).toEqual(["toString", "constructor", "hasOwnProperty", "plain"]);
    expect(copy).toEqual(value);
    expect(copy.constructor).not.toBe(value.constructor);
  });

  it("keeps an own __proto__ key, a null prototype and a cycle as they were", () => {
    const parsed = JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown>;
    const copy = copyOf(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ x: 1 });
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1 });
    expect(Object.getPrototypeOf(copyOf(bare))).toBeNull();
    const cycle: Record<string, unknown> = { n: 1 };
    cycle.self = cycle;
    const looped = copyOf(cycle);
    expect(looped.self).toBe(looped);
    expect(looped).not.toBe(cycle);
  });
});

describe("a plan is the shape of the tree it was made of", () => {
  it("refuses to copy a cached tree that was changed after planning, instead of copying it wrongly", () => {
    const message = new AIMessage({ content: "hi", tool_calls: [{ id: "c", name: "f", args: {} }] });
    const value = { messages: [message] };
    const plan = planCopy(value);
    if (plan === undefined) throw new Error("no plan");
    value.messages.push(new AIMessage("more"));
    expect(() => freshCopy(value, plan)).toThrow(CachedValueChangedError);
  });

  it("copies a shared object reached under a symbol key and in a cycle", () => {
    const inner = { n: 1 };
    const key = Symbol("k");
    const odd = Object.defineProperty({ [key]: inner, plain: inner }, "hidden", { value: inner, enumerable: false });
    const copy = copyOf(odd) as Record<string | symbol, unknown>;
    expect(copy[key]).toBe(copy.plain);
    expect(copy.hidden).toBe(copy.plain);
    expect(copy.plain).not.toBe(inner);
    expect(copy.plain).toEqual(inner);
  });
});

describe("objects reached more than once", () => {
  it("stay one object per copy however many there are, each copy its own", () => {
    const twins = Array.from({ length: 50 }, (_, i) => new AIMessage({ content: `m${i}`, tool_calls: [{ id: `c${i}`, name: "f", args: { i } }] }));
    const value = { messages: twins, again: twins.map((m) => m.tool_calls) };
    const plan = planCopy(value);
    if (plan === undefined) throw new Error("no plan");
    const [a, b] = [freshCopy(value, plan) as typeof value, freshCopy(value, plan) as typeof value];
    for (const copy of [a, b]) {
      copy.messages.forEach((m, i) => expect(copy.again[i]).toBe(m.tool_calls));
      copy.messages.forEach((m, i) => expect(m.tool_calls).not.toBe(twins[i]?.tool_calls));
    }
    expect(a.again[0]).not.toBe(b.again[0]);
    expect(a).toEqual(value);
  });

  it("refuses a tree where another object took a shared one's place", () => {
    const shared = { k: 1 };
    const value = { a: shared, b: shared };
    const plan = planCopy(value);
    if (plan === undefined) throw new Error("no plan");
    value.b = { k: 1 };
    expect(() => freshCopy(value, plan)).toThrow(CachedValueChangedError);
  });
});

describe("plans joined from parts", () => {
  it("are what planCopy makes of the whole, and copy it as faithfully", () => {
    // Items with objects reached twice (a message's field and its lc_kwargs twin), a primitive, and plain data.
    const items: unknown[] = [
      new AIMessage({ content: "a", id: "a1", tool_calls: [{ id: "c1", name: "f", args: { n: 1 } }] }),
      "just text",
      { plain: [1, { deep: true }] },
      new AIMessage({ content: "b", id: "a2", tool_calls: [{ id: "c2", name: "g", args: { n: 2 } }] }),
    ];
    const parts = items.map((item) => planCopy(item, 2));
    if (parts.some((part) => part === undefined)) throw new Error("no plan");
    const prefix = planCopy(new DeltaSnapshot([]));
    if (prefix === undefined) throw new Error("no plan");
    const snapshot = new DeltaSnapshot(items);
    const joined = joinPlans(prefix, parts as NonNullable<(typeof parts)[number]>[]);
    const whole = planCopy(snapshot);
    expect(joined.slots).toEqual(whole?.slots);
    expect(joined.shared).toEqual(whole?.shared);
    joined.shared.forEach((object, i) => expect(object).toBe(whole?.shared[i]));
    const copy = freshCopy(snapshot, joined) as DeltaSnapshot<AIMessage[]>;
    expect(copy).toEqual(snapshot);
    expect(copy.value[3]?.lc_kwargs.tool_calls).toBe(copy.value[3]?.tool_calls);
    expect(copy.value[3]?.tool_calls).not.toBe((items[3] as AIMessage).tool_calls);
  });

  it("are planned at the depth the part sits at: a part too deep for the whole is refused as the whole is", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 63; i++) deep = { next: deep };
    expect(planCopy(deep)).toBeDefined();
    expect(planCopy(deep, 2)).toBeUndefined();
    expect(planCopy(new DeltaSnapshot([deep]))).toBeUndefined();
  });
});
