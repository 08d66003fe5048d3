/**
 * The refs memo (refs-memo.ts): a put inherits its parent's refs from memory when the parent is its thread's last
 * committed put on the connection, and never from a memory some write has made stale: another connection's commit,
 * another saver's prune or re-put on the same connection, a refused write.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "agentrt/checkpointers";
import { refsMemoOf } from "../../../checkpointers/sqlite/refs-memo.js";
import { checkpoint } from "../conformance/saver.js";

const dir = mkdtempSync(join(tmpdir(), "agentrt-refs-memo-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = (step: number) => ({ source: "loop" as const, step, parents: {} });
/** Too long to live inline in its checkpoint row: a value row of its own. */
const BIG = "x".repeat(5000);
const storedRefs = (saver: SqliteSaver, id: string): unknown =>
  JSON.parse(saver.db.prepare<[string], string>("SELECT refs FROM checkpoints WHERE checkpoint_id = ?").pluck().get(id) ?? "null");
const idOf = (config: RunnableConfig) => String(config.configurable?.checkpoint_id);

describe("SqliteSaver refs memo", () => {
  it("remembers the stored refs of each thread's last committed put", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const first = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ a: "A", b: 1 }, { a: 1, b: 1 }), meta(0), { a: 1, b: 1 });
    const second = await saver.put(first, checkpoint({ a: "A", b: 2 }, { a: 1, b: 2 }), meta(1), { b: 2 });
    const memo = refsMemoOf(saver.db);
    expect(memo.get("t", "", idOf(first))).toBeUndefined();
    expect(memo.get("t", "", idOf(second))).toEqual(storedRefs(saver, idOf(second)));
    expect((await saver.getTuple(second))?.checkpoint.channel_values).toEqual({ a: "A", b: 2 });
    saver.close();
  });

  it("reads the parent's row again once another connection put that parent again (its refs changed)", async () => {
    const path = join(dir, "two-connections.db");
    const ours = SqliteSaver.create({ path });
    const other = SqliteSaver.create({ path });
    const root = { configurable: { thread_id: "t" } };
    const parentCheckpoint = checkpoint({ a: "small", b: 1 }, { a: 1, b: 1 });
    const parent = await ours.put(root, parentCheckpoint, meta(0), { a: 1, b: 1 });
    // The same checkpoint again from the other connection: `a` now lives in a value row, not in the parent's row.
    await other.put(root, { ...parentCheckpoint, channel_values: { a: BIG, b: 1 } }, meta(0), { a: 1, b: 1 });
    const child = await ours.put(parent, checkpoint({ a: BIG, b: 2 }, { a: 1, b: 2 }), meta(1), { b: 2 });
    expect((await other.getTuple(child))?.checkpoint.channel_values).toEqual({ a: BIG, b: 2 });
    ours.close();
    other.close();
  });

  it("forgets a thread another saver on the same connection prunes (kept rows get new refs)", async () => {
    const path = join(dir, "prune.db");
    const ours = SqliteSaver.create({ path });
    const other = new SqliteSaver(ours.db);
    let config: RunnableConfig = { configurable: { thread_id: "t" } };
    config = await ours.put(config, checkpoint({ a: "kept inline", n: 0 }, { a: 1, n: 1 }), meta(0), { a: 1, n: 1 });
    for (let step = 1; step < 4; step++) config = await ours.put(config, checkpoint({ a: "kept inline", n: step }, { a: 1, n: step + 1 }), meta(step), { n: step + 1 });
    // The first checkpoint held `a` inline; pruning it moves `a` to a value row and points the kept row at it.
    expect(await other.prune({ threadId: "t", keepLast: 1 })).toBe(3);
    const next = await ours.put(config, checkpoint({ a: "kept inline", n: 9 }, { a: 1, n: 10 }), meta(4), { n: 10 });
    expect((await ours.getTuple(next))?.checkpoint.channel_values).toEqual({ a: "kept inline", n: 9 });
    ours.close();
  });

  it("forgets a thread whose checkpoint is put again in the transaction of a later put", async () => {
    const saver = SqliteSaver.create({ path: ":memory:", durability: "group" });
    const root = { configurable: { thread_id: "t" } };
    const firstCheckpoint = checkpoint({ a: "inline", n: 0 }, { a: 1, n: 1 });
    const first = await saver.put(root, firstCheckpoint, meta(0), { a: 1, n: 1 });
    const second = await saver.put(first, checkpoint({ a: "inline", n: 1 }, { a: 1, n: 2 }), meta(1), { n: 2 });
    await saver.flush();
    expect(refsMemoOf(saver.db).get("t", "", idOf(second))).toEqual(storedRefs(saver, idOf(second)));
    // One group transaction: the first put again without `a` (the second's ref to it moves to a value row), then a
    // child of the second, which must see the second's new refs.
    const again = saver.put(root, { ...firstCheckpoint, channel_values: { n: 0 } }, meta(0), { n: 1 });
    const third = saver.put(second, checkpoint({ a: "inline", n: 2 }, { a: 1, n: 3 }), meta(2), { n: 3 });
    await Promise.all([again, third]);
    await saver.flush();
    expect((await saver.getTuple(await third))?.checkpoint.channel_values).toEqual({ a: "inline", n: 2 });
    saver.close();
  });

  it("remembers nothing of a refused write", async () => {
    let refuse = false;
    const saver = new SqliteSaver(SqliteSaver.create({ path: ":memory:" }).db, undefined, {
      beforeWrite: () => {
        if (refuse) throw new Error("fenced");
      },
    });
    const first = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ n: 0 }, { n: 1 }), meta(0), { n: 1 });
    refuse = true;
    await expect(saver.put(first, checkpoint({ n: 1 }, { n: 2 }), meta(1), { n: 2 })).rejects.toThrow("fenced");
    const memo = refsMemoOf(saver.db);
    expect(memo.get("t", "", idOf(first))).toEqual(storedRefs(saver, idOf(first)));
    saver.db.close();
  });

  it("remembers nothing of a put made inside a caller's transaction, which may still roll it back", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const first = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ n: 0 }, { n: 1 }), meta(0), { n: 1 });
    saver.db.exec("BEGIN");
    const second = await saver.put(first, checkpoint({ n: 1 }, { n: 2 }), meta(1), { n: 2 });
    saver.db.exec("ROLLBACK");
    const memo = refsMemoOf(saver.db);
    expect(memo.get("t", "", idOf(second))).toBeUndefined();
    expect(memo.get("t", "", idOf(first))).toEqual(storedRefs(saver, idOf(first)));
    saver.close();
  });
});

describe("SqliteSaver refs memo bounds and inputs", () => {
  it("remembers a bounded number of namespaces per thread, the root's always", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const root = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ a: "A" }, { a: 1 }), meta(0), { a: 1 });
    // Each subgraph call puts under a namespace of its own.
    for (let call = 0; call < 200; call++) {
      await saver.put({ configurable: { thread_id: "t", checkpoint_ns: `tools:${call}` } }, checkpoint({ a: call }, { a: 1 }), meta(0), { a: 1 });
    }
    const memo = refsMemoOf(saver.db);
    expect(memo.entries).toBeLessThanOrEqual(9);
    expect(memo.get("t", "", idOf(root))).toEqual(storedRefs(saver, idOf(root)));
    saver.close();
  });

  for (const durability of ["commit", "group"] as const) {
    it(`stores what the call was given, though the caller changes its version maps after put() (${durability})`, async () => {
      const saver = SqliteSaver.create({ path: ":memory:", durability });
      const newVersions: Record<string, number> = { a: 1 };
      const given = checkpoint({ a: "A1" }, { a: 1 });
      // Concurrent writers: the second put's write is queued behind the first one's batch.
      const [, config] = await Promise.all([
        saver.put({ configurable: { thread_id: "other" } }, checkpoint({ a: "X" }, { a: 1 }), meta(0), { a: 1 }),
        (async () => {
          const put = saver.put({ configurable: { thread_id: "t" } }, given, meta(0), newVersions);
          newVersions.b = 1;
          delete newVersions.a;
          given.channel_versions.a = 7;
          return put;
        })(),
      ]);
      if (durability === "group") await saver.flush();
      expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({ a: "A1" });
      saver.close();
    });
  }
});
