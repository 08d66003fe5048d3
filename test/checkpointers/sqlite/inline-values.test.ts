/**
 * Small values inline in their checkpoint row (checkpoints schema v3): what goes inline and what stays a value row,
 * that every read path (getTuple, list, delta history, a copy) gives inline values back exactly, that prune and a
 * checkpoint put again keep the values other checkpoints still name, and that a v2 file opens, reads and grows.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { migrate, openDatabase, readVersion } from "../../../src/db/index.js";
import { CHECKPOINT_SCHEMA } from "../../../checkpointers/sqlite/schema.js";
import { checkpoint } from "../conformance/saver.js";
import { STORED_VALUES, countRows } from "./stored-values.js";

const V1 = fileURLToPath(new URL("../../fixtures/historical/runs-v3-docs-v1-paused.sqlite", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "agentrt-inline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const input = { source: "input", step: -1, parents: {} } as const;
const loop = (step: number) => ({ source: "loop", step, parents: {} }) as const;
type Config = { configurable: Record<string, unknown> };

/** Values whose JSON text is tricky to keep inside another JSON array, or sits at the inline limit. */
const TRICKY: Record<string, unknown> = {
  jsonObjectText: '{"a":1,"b":[true,null]}',
  jsonArrayText: "[1,2,3]",
  nullText: "null",
  quoted: '"already quoted"',
  escapes: 'line\nbreak\ttab "quote" back\\slash \u0000 nul \u2028 sep',
  unicode: "héllo 世界 🎉 \u{1F600}",
  loneSurrogate: "\ud800 alone",
  lcText: { lc: 1, type: "not", id: ["a"] },
  numbers: [0.1 + 0.2, 1e21, -1.5e-7, 2 ** 53 + 2, 0],
  nested: { a: { b: { c: [{}, [], "", false] } } },
  emptyString: "",
  zero: 0,
  nul: null,
  atLimit: "x".repeat(2046),
  overLimit: "y".repeat(2047),
};

/** Where each channel's stored values of a thread are: "inline" in a checkpoint row, or a value "row". */
const storedAs = (saver: SqliteSaver, thread: string) =>
  Object.fromEntries(
    (saver.db.prepare(`SELECT channel, inline FROM ${STORED_VALUES} WHERE thread_id = ?`).all(thread) as { channel: string; inline: number }[]).map(
      (row) => [row.channel, row.inline === 1 ? "inline" : "row"],
    ),
  );

describe("inline checkpoint values (schema v3)", () => {
  it("round-trips JSON-looking text, unicode and values at the inline limit through every read path", async () => {
    const path = join(dir, "round-trip.db");
    const saver = SqliteSaver.create({ path });
    // One channel per checkpoint, so the row budget never pushes a value out; then a checkpoint changing none.
    const channels = Object.keys(TRICKY);
    const versions: Record<string, number> = {};
    const values: Record<string, unknown> = {};
    let config: Config = { configurable: { thread_id: "t" } };
    for (const [step, channel] of channels.entries()) {
      versions[channel] = 1;
      values[channel] = TRICKY[channel];
      config = (await saver.put(config, checkpoint({ ...values }, { ...versions }), step === 0 ? input : loop(step), { [channel]: 1 })) as Config;
    }
    config = (await saver.put(config, checkpoint({ ...values }, { ...versions }), loop(channels.length), {})) as Config;
    const where = storedAs(saver, "t");
    expect(where.atLimit).toBe("inline"); // its JSON text is 2,048 characters
    expect(where.overLimit).toBe("row"); // 2,049
    expect(Object.values(where).filter((kind) => kind === "row")).toHaveLength(1);
    saver.close();

    // A second saver: nothing cached, every value read from the file; the latest row names each holder.
    const reader = SqliteSaver.create({ path });
    expect((await reader.getTuple({ configurable: { thread_id: "t" } }))?.checkpoint.channel_values).toEqual(TRICKY);
    expect((await reader.getTuple(config))?.checkpoint.channel_values).toEqual(TRICKY);
    const listed: Record<string, unknown>[] = [];
    for await (const tuple of reader.list({ configurable: { thread_id: "t" } })) listed.push(tuple.checkpoint.channel_values);
    expect(listed).toHaveLength(channels.length + 1);
    expect(listed[0]).toEqual(TRICKY);
    // Each older checkpoint has the channels put up to it.
    expect(Object.keys(listed.at(-1) ?? {})).toEqual([channels[0]]);
    reader.copyThread("t", "copy");
    await reader.deleteThread("t");
    expect((await reader.getTuple({ configurable: { thread_id: "copy" } }))?.checkpoint.channel_values).toEqual(TRICKY);
    reader.close();
  });

  it("keeps a row's inline values under its budget: a second large value of one put goes to a value row", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const values = { first: "a".repeat(2000), second: "b".repeat(2000), small: 1 };
    const config = await saver.put({ configurable: { thread_id: "b" } }, checkpoint(values, { first: 1, second: 1, small: 1 }), input, { first: 1, second: 1, small: 1 });
    expect(storedAs(saver, "b")).toEqual({ first: "inline", second: "row", small: "inline" });
    expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual(values);
    saver.close();
  });

  it("reads a delta-history seed held inline, in its own row or an ancestor's, as the base walk does", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    let config = (await saver.put({ configurable: { thread_id: "d" } }, checkpoint({ d: "seed", e: 1 }, { d: 1, e: 1 }), input, { d: 1, e: 1 })) as Config;
    await saver.putWrites(config, [["d", "w1"]], "task-1");
    config = (await saver.put(config, checkpoint({ d: "seed", e: 2 }, { d: 1, e: 2 }), loop(0), { e: 2 })) as Config;
    await saver.putWrites(config, [["d", "w2"], ["e", "w3"]], "task-2");
    config = (await saver.put(config, checkpoint({ d: "seed", e: 3 }, { d: 1, e: 3 }), loop(1), { e: 3 })) as Config;
    const request = { config, channels: ["d", "e"] };
    const ours = await saver.getDeltaChannelHistory(request);
    expect(ours).toEqual(await BaseCheckpointSaver.prototype.getDeltaChannelHistory.call(saver, request));
    expect(ours.d?.seed).toBe("seed");
    expect(ours.e?.seed).toBe(2);
    saver.close();
  });

  it("prunes holders whose inline values kept checkpoints still name: those values move to value rows", async () => {
    const path = join(dir, "prune.db");
    const saver = SqliteSaver.create({ path });
    let config: Config = { configurable: { thread_id: "p" } };
    for (let step = 1; step <= 10; step++) {
      const versions = { stable: 1, other: 1, counter: step };
      const values = { stable: { text: "kept since step 1", n: [1, 2] }, other: "o", counter: step };
      config = (await saver.put(config, checkpoint(values, versions), loop(step), step === 1 ? versions : { counter: step })) as Config;
    }
    expect(storedAs(saver, "p")).toMatchObject({ stable: "inline", other: "inline" });
    expect(await saver.prune({ threadId: "p", keepLast: 3 })).toBe(7);
    // stable and other moved out of the pruned first row (one value row each, shared by the three kept rows).
    expect(countRows(saver.db, "checkpoint_blobs", "inline = 0")).toBe(2);
    expect(countRows(saver.db, "checkpoint_blobs")).toBe(5);
    saver.close();
    const reader = SqliteSaver.create({ path });
    const counters: unknown[] = [];
    for await (const tuple of reader.list({ configurable: { thread_id: "p" } })) {
      expect(tuple.checkpoint.channel_values).toMatchObject({ stable: { text: "kept since step 1", n: [1, 2] }, other: "o" });
      counters.push(tuple.checkpoint.channel_values.counter);
    }
    expect(counters).toEqual([10, 9, 8]);
    // A put after the prune inherits the moved refs.
    const next = await reader.put(config, checkpoint({ stable: { text: "kept since step 1", n: [1, 2] }, other: "o", counter: 11 }, { stable: 1, other: 1, counter: 11 }), loop(11), { counter: 11 });
    expect((await reader.getTuple(next))?.checkpoint.channel_values).toEqual({ stable: { text: "kept since step 1", n: [1, 2] }, other: "o", counter: 11 });
    await reader.deleteThread("p");
    expect(countRows(reader.db, "checkpoint_blobs")).toBe(0);
    reader.close();
  });

  it("keeps the inline value a child names when its holder is put again with another value", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const first = (await saver.put({ configurable: { thread_id: "r" } }, checkpoint({ a: "a1", b: "b1" }, { a: 1, b: 1 }), input, { a: 1, b: 1 })) as Config;
    const child = await saver.put(first, checkpoint({ a: "a1", b: "b2" }, { a: 1, b: 2 }), loop(0), { b: 2 });
    // The first checkpoint put again under its id, a changed at the same version (as the v2 test of replacement does).
    const again = checkpoint({ a: "A!", b: "b1" }, { a: 1, b: 1 });
    again.id = String(first.configurable.checkpoint_id);
    await saver.put({ configurable: { thread_id: "r" } }, again, input, { a: 1, b: 1 });
    expect((await saver.getTuple(first))?.checkpoint.channel_values).toEqual({ a: "A!", b: "b1" });
    expect((await saver.getTuple(child))?.checkpoint.channel_values).toEqual({ a: "a1", b: "b2" });
    saver.close();
  });

  it("opens a v2 file (built by the v2 migration path), reads it, and extends it", async () => {
    const path = join(dir, "v2.sqlite");
    copyFileSync(V1, path);
    const old = openDatabase(path);
    migrate(old, { ...CHECKPOINT_SCHEMA, migrations: CHECKPOINT_SCHEMA.migrations.slice(0, 2) });
    expect(readVersion(old, "checkpoints")).toBe(2);
    const thread = old.prepare("SELECT thread_id FROM checkpoints ORDER BY checkpoint_id DESC LIMIT 1").pluck().get() as string;
    const total = old.prepare("SELECT count(*) FROM checkpoints WHERE thread_id = ?").pluck().get(thread) as number;
    old.close();

    const saver = SqliteSaver.create({ path });
    expect(readVersion(saver.db, "checkpoints")).toBe(3);
    const latest = await saver.getTuple({ configurable: { thread_id: thread } });
    expect(latest).toBeDefined();
    const listed: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: thread } })) listed.push(tuple.checkpoint.id);
    expect(listed).toHaveLength(total);
    // A child of the latest v2 checkpoint: its unchanged channels keep v2's value rows, the changed one goes inline.
    const values = { ...(latest?.checkpoint.channel_values ?? {}), extra: { added: "in v3" } };
    const versions = { ...(latest?.checkpoint.channel_versions ?? {}), extra: 1 };
    const child = await saver.put(latest!.config, { ...checkpoint(values, versions), versions_seen: latest!.checkpoint.versions_seen }, loop(99), { extra: 1 });
    saver.close();
    const reader = SqliteSaver.create({ path });
    const read = await reader.getTuple(child);
    expect(read?.checkpoint.channel_values).toEqual(values);
    expect(read?.parentConfig?.configurable?.checkpoint_id).toBe(latest?.checkpoint.id);
    let count = 0;
    for await (const _ of reader.list({ configurable: { thread_id: thread } })) count += 1;
    expect(count).toBe(total + 1);
    reader.close();
  });
});
