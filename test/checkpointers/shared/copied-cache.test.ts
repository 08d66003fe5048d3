/** The copied cache's copies made ahead for a large tree read again and again: each reader's own, taken without a copy on the read. */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { CopiedCache, MISS } from "../../../checkpointers/shared/copied-cache.js";

/** A history large enough to get copies made ahead (over 4,096 objects). */
const history = (): BaseMessage[] =>
  Array.from({ length: 800 }, (_, i) => (i % 2 === 0
    ? new HumanMessage({ content: `q${i}`, id: `h${i}` })
    : new AIMessage({ content: "", id: `a${i}`, tool_calls: [{ name: "restart", args: { service: `s${i}` }, id: `c${i}`, type: "tool_call" }] })));
/** Until the copy ahead is made: zero timers run in the order they were set, and it is set on a read before this. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 0));
/** Counts the copies the cache makes, by the messages' own arrays it reads (a read of the kept tree's items). */
const read = (cache: CopiedCache, key = "k") => cache.read(key, false) as BaseMessage[];

describe("CopiedCache: copies made ahead", () => {
  it("hands the next reader a copy made ahead, its own: what one reader changes no other sees", async () => {
    const cache = new CopiedCache(8, 1024 * 1024);
    const kept = history();
    const first = cache.keep("k", kept, 1000, false) as BaseMessage[];
    const second = read(cache);
    await idle();
    // The third read takes the copy made ahead: a new tree, not the kept one nor an earlier reader's.
    const third = read(cache);
    for (const copy of [first, second, third]) {
      expect(copy).not.toBe(kept);
      expect(copy[1]).not.toBe(kept[1]);
    }
    expect(third).not.toBe(second);
    expect(third[1]).not.toBe(second[1]);
    // Readers change what they read (the HITL middleware assigns tool_calls): no one else sees it.
    (second[1] as AIMessage).tool_calls = [];
    ((third[3] as AIMessage).tool_calls?.[0]?.args as Record<string, string>).service = "changed";
    third.pop();
    await idle();
    const fourth = read(cache);
    expect(fourth).toHaveLength(800);
    expect((fourth[1] as AIMessage).tool_calls).toHaveLength(1);
    expect((fourth[3] as AIMessage).tool_calls?.[0]?.args).toEqual({ service: "s3" });
    expect(fourth).toEqual(history());
    expect(kept).toEqual(history());
  });

  it("makes the copy ahead off the read: a read after it takes it with no copy of the kept tree", async () => {
    const cache = new CopiedCache(8, 1024 * 1024);
    const kept = history();
    cache.keep("k", kept, 1000, false);
    read(cache);
    await idle();
    // A kept tree changed (only a sharing reader could) fails the next copy of it; the copy made ahead was made before.
    kept.pop();
    expect(read(cache)).toHaveLength(800);
    expect(cache.read("k", false)).toBe(MISS);
  });

  it("makes the copy ahead before a reader the loop resumes on a zero timer, as LangGraph's store poller resumes a run", async () => {
    const cache = new CopiedCache(8, 1024 * 1024);
    const kept = history();
    cache.keep("k", kept, 1000, false);
    // Read in a check phase (an immediate's microtasks), the reader going on from a zero timer: the loop runs that
    // timer before it reaches the check phase again, so a copy ahead on an immediate would come too late.
    await new Promise((resolve) => setImmediate(resolve));
    read(cache);
    const resumed = new Promise((resolve) => setTimeout(resolve, 0));
    // The rest of the reader's step: the zero timer is due by the time the loop goes on.
    const stepEnd = performance.now() + 3;
    while (performance.now() < stepEnd);
    await resumed;
    kept.pop();
    expect(read(cache)).toHaveLength(800);
  });

  it("makes a copy ahead only for a tree read more than once, counted in the byte budget: older entries make room", async () => {
    const cache = new CopiedCache(8, 2500);
    cache.keep("a", history(), 1000, false);
    cache.keep("b", history(), 1000, false);
    // "a" read a second time: its copy ahead (1,000 more, over the 2,500) pushes the least recently used out: "b".
    expect(cache.read("a", false)).not.toBe(MISS);
    await idle();
    expect(cache.read("b", false)).toBe(MISS);
    // "a" and its copy ahead weigh 2,000: a new entry of 1,000 pushes them out.
    cache.keep("c", history(), 1000, false);
    expect(cache.read("a", false)).toBe(MISS);
    // "c", read once when kept: no copy ahead, so "d" fits beside it.
    await idle();
    cache.keep("d", history(), 1000, false);
    expect(cache.read("c", false)).not.toBe(MISS);
  });

  it("drops a copy made ahead with its entry, and hands a forgotten key no stale copy", async () => {
    const cache = new CopiedCache(8, 1024 * 1024);
    cache.keep("t\u0000k", history(), 1000, false);
    read(cache, "t\u0000k");
    await idle();
    cache.forgetPrefix("t\u0000");
    expect(cache.read("t\u0000k", false)).toBe(MISS);
    // Kept again with other content: its readers get that, never the copy of the forgotten tree.
    const other = history().slice(0, 700);
    cache.keep("t\u0000k", other, 1000, false);
    read(cache, "t\u0000k");
    await idle();
    expect(read(cache, "t\u0000k")).toHaveLength(700);
  });

  it("makes no copy ahead for a tree over half the budget: the other entries stay", async () => {
    const cache = new CopiedCache(8, 2500);
    for (const key of ["s1", "s2", "s3"]) cache.keep(key, { small: key }, 100, false);
    cache.keep("big", history(), 1500, false);
    expect(read(cache, "big")).toHaveLength(800);
    await idle();
    for (const key of ["s1", "s2", "s3"]) expect(cache.read(key, false)).toEqual({ small: key });
  });

  it("counts a sharing reader's read as none: a tree kept by a shared check, then read once, gets no copy ahead", async () => {
    const cache = new CopiedCache(8, 2500);
    cache.keep("other", history(), 1000, false);
    // A run's shared check keeps the history; the run's own read copies it once.
    cache.keep("k", history(), 1000, true);
    expect(read(cache)).toHaveLength(800);
    await idle();
    // No copy ahead of "k" (1,000 more) pushed "other" out of the 2,500.
    expect(cache.read("other", false)).not.toBe(MISS);
  });
});
