import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { DeltaSnapshot, JsonPlusSerializer, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { SnapshotItems } from "../../../checkpointers/shared/snapshot-items.js";
import { planCopy } from "../../../checkpointers/shared/fresh-copy.js";

const meta = { source: "loop" as const, step: 0, parents: {} };
const latest = { configurable: { thread_id: "t" } };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function file(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-snapshot-items-"));
  dirs.push(dir);
  return join(dir, "c.db");
}

const message = (i: number, extra: Record<string, unknown> = {}): BaseMessage =>
  i % 2 === 0
    ? new HumanMessage({ content: `question ${i} ${"x".repeat(80)}`, id: `h${i}`, additional_kwargs: extra })
    : new AIMessage({ content: `answer ${i}`, id: `a${i}`, additional_kwargs: extra });

/** A default serde whose revivals are counted (the saver still takes it for the default: same prototype). */
function countingSerde(): { serde: JsonPlusSerializer; revivals: () => number } {
  const serde = new JsonPlusSerializer();
  let count = 0;
  const loadsTyped = serde.loadsTyped.bind(serde);
  serde.loadsTyped = (type, data) => {
    count += 1;
    return loadsTyped(type, data);
  };
  return { serde, revivals: () => count };
}

let lastVersion: number = 0;

/** Puts a checkpoint whose messages channel is a DeltaSnapshot of `messages`; returns its config. */
async function putSnapshot(saver: SqliteSaver, messages: BaseMessage[], step: number, parent?: string) {
  const version = saver.getNextVersion(undefined);
  lastVersion = version;
  const checkpoint: Checkpoint = {
    v: 4, id: uuid6(step), ts: new Date().toISOString(), channel_values: { messages: new DeltaSnapshot(messages) },
    channel_versions: { messages: version }, versions_seen: {},
  };
  return saver.put(parent === undefined ? latest : { configurable: { thread_id: "t", checkpoint_id: parent } }, checkpoint, meta, { messages: version });
}

const messagesOf = async (saver: SqliteSaver) => ((await saver.getTuple(latest))?.checkpoint.channel_values.messages as DeltaSnapshot).value as BaseMessage[];

/** What a saver that never read the file decodes. */
async function fresh(path: string): Promise<BaseMessage[]> {
  const saver = SqliteSaver.create({ path });
  try {
    return await messagesOf(saver);
  } finally {
    saver.close();
  }
}

describe("SqliteSaver: a new snapshot revives only the items the previous one did not hold", () => {
  it("gives what a fresh decode gives, revives only the new and changed items, shares nothing", async () => {
    const path = file();
    const { serde, revivals } = countingSerde();
    const saver = SqliteSaver.create({ path, serde });
    const first = Array.from({ length: 60 }, (_, i) => message(i));
    const one = await putSnapshot(saver, first, 0);
    const before = await messagesOf(saver);
    expect(before).toEqual(await fresh(path));
    // A caller changing what it read or what it put reaches nothing kept.
    (before[0] as { content: unknown }).content = "changed by a reader";
    (first[2] as { content: unknown }).content = "changed by the writer";
    const second = [...Array.from({ length: 60 }, (_, i) => message(i)), message(60), message(61)];
    second[5] = new AIMessage({ content: "answer 5, edited", id: "a5" });
    await putSnapshot(saver, second, 1, one.configurable?.checkpoint_id as string);
    const counted = revivals();
    const after = await messagesOf(saver);
    // The two new items and the edited one; the 59 others come from the first snapshot's.
    expect(revivals() - counted).toBe(3);
    const expected = await fresh(path);
    expect(after).toEqual(expected);
    expect(after.map((m) => Object.getPrototypeOf(m))).toEqual(expected.map((m) => Object.getPrototypeOf(m)));
    expect(after[0]?.content).toMatch(/^question 0/);
    expect(after[2]?.content).toMatch(/^question 2/);
    expect(after[5]?.content).toBe("answer 5, edited");
    expect(after).not.toContain(before[1]);
    // Changing this read's items reaches neither the cache nor the next snapshot's revival.
    (after[1] as { content: unknown }).content = "changed again";
    expect(await messagesOf(saver)).toEqual(expected);
    const third = [...second, message(62)];
    await putSnapshot(saver, third, 2, (await saver.getTuple(latest))?.config.configurable?.checkpoint_id as string);
    expect(await messagesOf(saver)).toEqual(await fresh(path));
    saver.close();
  });

  it("a delta history's seed read after a new snapshot is what a fresh saver reads", async () => {
    const path = file();
    const { serde, revivals } = countingSerde();
    const saver = SqliteSaver.create({ path, serde });
    const history = async (reader: SqliteSaver) => (await reader.getDeltaChannelHistory({ config: latest, channels: ["messages"] })).messages;
    /** A checkpoint under `parent` that stores no value of messages: its history seeds from `parent`'s snapshot. */
    const putChild = async (parent: string, step: number) => {
      const version = lastVersion;
      const checkpoint: Checkpoint = { v: 4, id: uuid6(step), ts: new Date().toISOString(), channel_values: {}, channel_versions: { messages: version }, versions_seen: {} };
      return saver.put({ configurable: { thread_id: "t", checkpoint_id: parent } }, checkpoint, meta, {});
    };
    const one = await putSnapshot(saver, Array.from({ length: 60 }, (_, i) => message(i)), 0);
    const child = await putChild(one.configurable?.checkpoint_id as string, 1);
    await history(saver);
    const two = await putSnapshot(saver, Array.from({ length: 64 }, (_, i) => message(i)), 2, child.configurable?.checkpoint_id as string);
    await putChild(two.configurable?.checkpoint_id as string, 3);
    const counted = revivals();
    const read = await history(saver);
    expect(revivals() - counted).toBe(4);
    const other = SqliteSaver.create({ path });
    expect(read).toEqual(await history(other));
    expect((read?.seed as DeltaSnapshot).value).toHaveLength(64);
    other.close();
    saver.close();
  });

  it("hands the plan of the snapshot it revived, once: the one planCopy makes of it, for the old items and the new", async () => {
    const items = new SnapshotItems();
    const key = { thread: "t", ns: "", channel: "messages" };
    const serde = new JsonPlusSerializer();
    const revive = (text: string) => serde.loadsTyped("json", text);
    const text = async (messages: BaseMessage[]) => new TextDecoder().decode((await serde.dumpsTyped(new DeltaSnapshot(messages)))[1]);
    const first = Array.from({ length: 6 }, (_, i) => message(i));
    for (const messages of [first, [...first, message(6), new AIMessage({ content: "x", id: "a7", tool_calls: [{ id: "c", name: "f", args: {} }] })]]) {
      const snapshot = await items.revive(key, await text(messages), revive);
      const plan = items.takePlan(snapshot);
      const whole = planCopy(snapshot);
      expect(plan?.slots).toEqual(whole?.slots);
      plan?.shared.forEach((object, i) => expect(object).toBe(whole?.shared[i]));
      expect(plan?.shared).toHaveLength(whole?.shared.length ?? -1);
      expect(items.takePlan(snapshot)).toBeUndefined();
    }
  });

  it("leaves a snapshot holding a -0 to the serde (its items' JSON.stringify would write 0)", async () => {
    const items = new SnapshotItems();
    const key = { thread: "t", ns: "", channel: "messages" };
    const revive = (text: string) => new JsonPlusSerializer().loadsTyped("json", text);
    expect(await items.revive(key, '{"lc":2,"type":"delta_snapshot","value":[{"a":-0}]}', revive)).toBeUndefined();
    expect(await items.revive(key, '{"lc":2,"type":"delta_snapshot","value":[{"a":[1, -0.0e3 ]}]}', revive)).toBeUndefined();
    expect(await items.revive(key, '{"lc":2,"type":"other","value":[]}', revive)).toBeUndefined();
    const revived = await items.revive(key, '{"lc":2,"type":"delta_snapshot","value":[{"id":"e549f560-0abc","n":-0.5}]}', revive);
    expect(revived).toBeInstanceOf(DeltaSnapshot);
    expect((revived as DeltaSnapshot).value).toEqual([{ id: "e549f560-0abc", n: -0.5 }]);
  });

  it("keeps at most its budget of item text, oldest channel out first, and a snapshot over it not at all", async () => {
    const items = new SnapshotItems(100);
    let revived = 0;
    const revive = async (text: string) => {
      revived += 1;
      return new JsonPlusSerializer().loadsTyped("json", text);
    };
    const snapshot = (...texts: string[]) => JSON.stringify({ lc: 2, type: "delta_snapshot", value: texts.map((text) => ({ text })) });
    const at = (channel: string) => ({ thread: "t", ns: "", channel });
    await items.revive(at("a"), snapshot("a".repeat(40)), revive);
    expect(items.keptChars).toBe(51);
    await items.revive(at("a"), snapshot("a".repeat(40), "b"), revive);
    expect(revived).toBe(2);
    await items.revive(at("c"), snapshot("c".repeat(40)), revive);
    // 63 + 51 chars is over 100: channel a, the oldest, goes.
    expect(items.keptChars).toBe(51);
    await items.revive(at("a"), snapshot("a".repeat(40)), revive);
    expect(revived).toBe(4);
    await items.revive(at("big"), snapshot("x".repeat(200)), revive);
    await items.revive(at("big"), snapshot("x".repeat(200)), revive);
    expect(revived).toBe(6);
    expect(items.keptChars).toBeLessThanOrEqual(100);
  });

  it("a put whose transaction rolls back leaves the previous snapshot's reads as a fresh decode gives them", async () => {
    const path = file();
    let refuse = false;
    const saver = SqliteSaver.create({ path, beforeWrite: () => {
      if (refuse) throw new Error("refused");
    } });
    const one = await putSnapshot(saver, Array.from({ length: 60 }, (_, i) => message(i)), 0);
    await messagesOf(saver);
    refuse = true;
    await expect(putSnapshot(saver, Array.from({ length: 70 }, (_, i) => message(i + 1)), 1, one.configurable?.checkpoint_id as string)).rejects.toThrow();
    refuse = false;
    const read = await messagesOf(saver);
    expect(read).toHaveLength(60);
    expect(read).toEqual(await fresh(path));
    saver.close();
  });
});
