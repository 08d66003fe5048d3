import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { DeltaSnapshot, uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";

const meta = { source: "loop" as const, step: 0, parents: {} };
const latest = { configurable: { thread_id: "t" } };

/** A history big enough to be cached (several KB stored). */
function history(): BaseMessage[] {
  return Array.from({ length: 60 }, (_, i) =>
    i % 2 === 0 ? new HumanMessage({ content: `question ${i} ${"x".repeat(80)}`, id: `h${i}` }) : new AIMessage({ content: `answer ${i}`, id: `a${i}` }),
  );
}

async function saverWithSnapshot(): Promise<SqliteSaver> {
  const saver = SqliteSaver.create({ path: ":memory:" });
  const version = saver.getNextVersion(undefined);
  const checkpoint: Checkpoint = {
    v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: { messages: new DeltaSnapshot(history()) },
    channel_versions: { messages: version }, versions_seen: {},
  };
  await saver.put(latest, checkpoint, meta, { messages: version });
  return saver;
}

const messagesOf = async (saver: SqliteSaver) => ((await saver.getTuple(latest))?.checkpoint.channel_values.messages as DeltaSnapshot).value as BaseMessage[];

describe("SqliteSaver decoded value cache", () => {
  it("hands every read its own copy: changing one changes no later read", async () => {
    const saver = await saverWithSnapshot();
    const first = await messagesOf(saver);
    expect(first).toHaveLength(60);
    first.push(new HumanMessage("added by a caller"));
    first.length = 10;
    const second = await messagesOf(saver);
    expect(second).not.toBe(first);
    expect(second).toHaveLength(60);
    expect(second[0]?.content).toMatch(/^question 0/);
    expect(AIMessage.isInstance(second[1])).toBe(true);
    (second[1] as { content: unknown }).content = "edited";
    const third = await messagesOf(saver);
    expect(third[1]?.content).toBe("answer 1");
    expect(third[1]?.text).toBe("answer 1");
    saver.close();
  });

  it("lets go of its kept values on close: a shared read after it decodes afresh", async () => {
    // A connection of the caller's: the saver stays readable after close, and shows what it still keeps.
    const db = new Database(":memory:");
    const saver = new SqliteSaver(db);
    const version = saver.getNextVersion(undefined);
    await saver.put(latest, {
      v: 4, id: uuid6(0), ts: new Date().toISOString(), channel_values: { messages: new DeltaSnapshot(history()) },
      channel_versions: { messages: version }, versions_seen: {},
    }, meta, { messages: version });
    const view = saver.readOnlyView({ shared: new Set(["messages"]) });
    const shared = async () => ((await view.getTuple(latest))?.checkpoint.channel_values.messages as DeltaSnapshot).value;
    // A first read keeps nothing (a checkpoint read once may never be read again); the second keeps its tuple.
    await shared();
    const kept = await shared();
    expect(await shared()).toBe(kept);
    saver.close();
    const afresh = await shared();
    expect(afresh).not.toBe(kept);
    expect(afresh).toEqual(kept);
    db.close();
  });

  it("reads a deleted and rewritten thread afresh", async () => {
    const saver = await saverWithSnapshot();
    await messagesOf(saver);
    await saver.deleteThread("t");
    const version = saver.getNextVersion(undefined);
    const other = [new HumanMessage({ content: "y".repeat(5000), id: "only" })];
    await saver.put(latest, {
      v: 4, id: uuid6(1), ts: new Date().toISOString(), channel_values: { messages: new DeltaSnapshot(other) },
      channel_versions: { messages: version }, versions_seen: {},
    }, meta, { messages: version });
    expect((await messagesOf(saver)).map((m) => m.id)).toEqual(["only"]);
    saver.close();
  });
});
