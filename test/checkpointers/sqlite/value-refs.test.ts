/**
 * Checkpoint values found by row id through each checkpoint's refs (checkpoints schema v2): the migration from
 * v1's (thread, version, channel) keys keeps every checkpoint's values, and the paths that create or drop refs
 * (a put again under the same id, a copy, a put whose config names another parent) leave no value lost or orphaned.
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { openDatabase, readVersion } from "../../../src/db/index.js";
import { CHECKPOINT_SCHEMA } from "../../../checkpointers/sqlite/schema.js";
import { checkpoint } from "../conformance/saver.js";
import { countRows } from "./stored-values.js";

const V1 = fileURLToPath(new URL("../../fixtures/historical/runs-v3-docs-v1-paused.sqlite", import.meta.url));

type ValueRow = { thread_id: string; checkpoint_ns: string; checkpoint_id: string; channel: string; type: string; value: string };

const count = (saver: SqliteSaver, where = "1") => countRows(saver.db, "checkpoint_blobs", where);
const input = { source: "input", step: -1, parents: {} } as const;

describe("checkpoint value refs", () => {
  it("migrates a v1 file with every checkpoint keeping exactly the values its channel versions named", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "agentrt-refs-")), "v1.sqlite");
    copyFileSync(V1, path);
    const old = openDatabase(path);
    expect(readVersion(old, "checkpoints")).toBe(1);
    const before = old
      .prepare(
        `SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, v.key AS channel, b.type, hex(b.value) AS value
           FROM checkpoints c, json_each(c.checkpoint, '$.channel_versions') v
           JOIN checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns AND b.channel = v.key AND b.version = v.value
          ORDER BY 1, 2, 3, 4`,
      )
      .all() as ValueRow[];
    old.close();
    expect(before.length).toBeGreaterThan(20);

    const saver = SqliteSaver.create({ path });
    expect(readVersion(saver.db, "checkpoints")).toBe(CHECKPOINT_SCHEMA.migrations.length);
    const after = saver.db
      .prepare(
        `SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, r.key AS channel, b.type, hex(b.value) AS value
           FROM checkpoints c, json_each(c.refs) r JOIN checkpoint_blobs b ON b.id = r.value ->> 0
          ORDER BY 1, 2, 3, 4`,
      )
      .all() as ValueRow[];
    expect(after).toEqual(before);
    // The key index the migration used is gone: a put writes no index of this table.
    expect(saver.db.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'checkpoint_blobs' AND type = 'index'").all()).toEqual([]);
    const [thread] = before.map((row) => row.thread_id);
    const latest = await saver.getTuple({ configurable: { thread_id: thread } });
    const id = latest?.checkpoint.id;
    const channels = before.filter((row) => row.thread_id === thread && row.checkpoint_ns === "" && row.checkpoint_id === id).map((row) => row.channel);
    expect(channels.length).toBeGreaterThan(0);
    expect(Object.keys(latest?.checkpoint.channel_values ?? {}).sort()).toEqual(channels);
    saver.close();
  });

  it("drops the values only a replaced checkpoint referenced when the same id is put again", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    const first = await saver.put({ configurable: { thread_id: "r" } }, checkpoint({ keep: "k", a: "1" }, { keep: 1, a: 1 }), input, { keep: 1, a: 1 });
    const next = checkpoint({ keep: "k", a: "2" }, { keep: 1, a: 2 });
    await saver.put(first, next, { source: "loop", step: 0, parents: {} }, { a: 2 });
    await saver.put(first, { ...next, channel_values: { keep: "k", a: "3" } }, { source: "loop", step: 0, parents: {} }, { a: 2 });
    expect((await saver.getTuple({ configurable: { thread_id: "r" } }))?.checkpoint.channel_values).toEqual({ keep: "k", a: "3" });
    // keep (shared), a@1 (the first checkpoint's), a@2 as put the second time: the first a@2 went with the row it belonged to.
    expect(count(saver)).toBe(3);
    await saver.deleteThread("r");
    expect(count(saver)).toBe(0);
    saver.close();
  });

  it("gives a copied thread its own values: deleting the original leaves the copy whole", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    let config = await saver.put({ configurable: { thread_id: "src" } }, checkpoint({ stable: "s", n: 0 }, { stable: 1, n: 1 }), input, { stable: 1, n: 1 });
    for (let step = 1; step <= 3; step++) {
      config = await saver.put(config, checkpoint({ stable: "s", n: step }, { stable: 1, n: step + 1 }), { source: "loop", step, parents: {} }, { n: step + 1 });
    }
    saver.copyThread("src", "dst");
    await saver.deleteThread("src");
    const values: unknown[] = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "dst" } })) values.push(tuple.checkpoint.channel_values);
    expect(values).toEqual([3, 2, 1, 0].map((n) => ({ stable: "s", n })));
    expect(count(saver, "thread_id = 'dst'")).toBe(5);
    expect(count(saver)).toBe(5);
    saver.close();
  });

  it("finds an unchanged value by its version when the config names a checkpoint that does not hold it", async () => {
    const saver = SqliteSaver.create({ path: ":memory:" });
    await saver.put({ configurable: { thread_id: "f" } }, checkpoint({ big: "B", n: 0 }, { big: 1, n: 1 }), input, { big: 1, n: 1 });
    // The config names no parent; big@1 is still the thread's stored value of that version.
    const orphanParent = { configurable: { thread_id: "f", checkpoint_id: "not-stored" } };
    await saver.put(orphanParent, checkpoint({ big: "B", n: 1 }, { big: 1, n: 2 }), { source: "loop", step: 0, parents: {} }, { n: 2 });
    expect((await saver.getTuple({ configurable: { thread_id: "f" } }))?.checkpoint.channel_values).toEqual({ big: "B", n: 1 });
    saver.close();
  });
});
