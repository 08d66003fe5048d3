// durability "commit" (the default): writes arriving together share one transaction, and each call
// resolves only after that transaction is committed; a refused or failing write fails alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";
import { countRows } from "./stored-values.js";

const dir = mkdtempSync(join(tmpdir(), "agentrt-commit-batch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = { source: "loop" as const, step: 0, parents: {} };
const on = (thread: string) => ({ configurable: { thread_id: thread } });
const checkpoint = (step: number): Checkpoint => ({
  v: 4, id: uuid6(step), ts: new Date().toISOString(), channel_values: { a: step }, channel_versions: { a: step + 1 }, versions_seen: {},
});
/** Rows another connection sees: only what is committed. */
function committed(path: string): number {
  const other = new Database(path, { readonly: true });
  try {
    return other.prepare("SELECT count(*) FROM checkpoints").pluck().get() as number;
  } finally {
    other.close();
  }
}

describe('SqliteSaver durability: "commit" batches', () => {
  it("commits puts made at once on 32 threads together (after the first, which commits alone), each resolving only once committed", async () => {
    const path = join(dir, "many.db");
    const saver = SqliteSaver.create({ path });
    const seen: number[] = [];
    const puts = Array.from({ length: 32 }, (_, i) =>
      saver.put(on(`t${i}`), checkpoint(i), meta, { a: i + 1 }).then(() => seen.push(committed(path))),
    );
    // The first call saw no other writer yet and committed at once; the 31 after it in the same wave are queued for one transaction.
    expect(committed(path)).toBe(1);
    await Promise.all(puts);
    // Those 31 saw all 32 on disk when they resolved: one transaction held them all.
    expect(seen.filter((n) => n === 32)).toHaveLength(32 - seen.filter((n) => n === 1).length);
    expect(seen.filter((n) => n === 32).length).toBeGreaterThanOrEqual(31);
    saver.close();
  });

  it("still commits a lone sequential writer's every put before it resolves", async () => {
    const path = join(dir, "lone.db");
    const saver = SqliteSaver.create({ path });
    let config = on("t");
    for (let step = 0; step < 5; step++) {
      config = (await saver.put(config, checkpoint(step), meta, { a: step + 1 })) as typeof config;
      expect(committed(path)).toBe(step + 1);
    }
    saver.close();
  });

  it("refuses a fenced write alone: the rest of its batch commits", async () => {
    const path = join(dir, "fenced.db");
    class Fenced extends Error {}
    const undone: string[] = [];
    const saver = SqliteSaver.create({
      path,
      beforeWrite: (config) => {
        const thread = String(config.configurable?.thread_id);
        if (thread === "stale") throw new Fenced("lease lost");
        return () => undone.push(thread);
      },
    });
    const results = await Promise.allSettled(["a", "stale", "b"].map((thread, i) => saver.put(on(thread), checkpoint(i), meta, { a: i + 1 })));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Fenced);
    expect(committed(path)).toBe(2);
    expect(undone).toEqual([]);
    saver.close();
  });

  it("rolls back a write whose statement fails alone, and calls its guard's undo", async () => {
    const path = join(dir, "failing.db");
    const undone: string[] = [];
    const saver = SqliteSaver.create({ path, beforeWrite: (config) => () => undone.push(String(config.configurable?.thread_id)) });
    saver.db.exec("CREATE TRIGGER refuse_bad BEFORE INSERT ON checkpoints WHEN NEW.thread_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END");
    const results = await Promise.allSettled(["a", "bad", "b"].map((thread, i) => saver.put(on(thread), checkpoint(i), meta, { a: i + 1 })));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "DB_OPEN_FAILED", message: expect.stringMatching(/refused by trigger/) });
    expect(undone).toEqual(["bad"]);
    expect(committed(path)).toBe(2);
    saver.close();
  });

  it("runs a batch without guards in one go, yet a write that fails there still fails alone", async () => {
    const path = join(dir, "plain-failing.db");
    const saver = SqliteSaver.create({ path });
    saver.db.exec("CREATE TRIGGER refuse_bad BEFORE INSERT ON checkpoints WHEN NEW.thread_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused by trigger'); END");
    const results = await Promise.allSettled(["a", "b", "bad", "c"].map((thread, i) => saver.put(on(thread), checkpoint(i), meta, { a: i + 1 })));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: expect.stringMatching(/refused by trigger/) });
    expect(committed(path)).toBe(3);
    // The batch that held "bad" was rolled back whole once; every value row left belongs to a stored checkpoint.
    expect(countRows(saver.db, "checkpoint_blobs")).toBe(3);
    saver.close();
  });

  it("rejects every write of a batch whose transaction cannot start (no guard ran, nothing to undo)", async () => {
    const path = join(dir, "busy.db");
    const undone: string[] = [];
    const saver = SqliteSaver.create({ path, busyTimeoutMs: 0, beforeWrite: (config) => () => undone.push(String(config.configurable?.thread_id)) });
    const blocker = new Database(path);
    blocker.exec("BEGIN IMMEDIATE");
    const results = await Promise.allSettled(["a", "b"].map((thread, i) => saver.put(on(thread), checkpoint(i), meta, { a: i + 1 })));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    // The transaction never began: no guard ran, so there is nothing to undo.
    expect(undone).toEqual([]);
    blocker.exec("ROLLBACK");
    blocker.close();
    await saver.put(on("a"), checkpoint(9), meta, { a: 10 });
    expect(committed(path)).toBe(1);
    saver.close();
  });

  it("lets a read see a put it was not told to wait for", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "read.db") });
    const pending = saver.put(on("r"), checkpoint(0), meta, { a: 1 });
    expect((await saver.getTuple(on("r")))?.checkpoint.channel_values).toEqual({ a: 0 });
    await pending;
    saver.close();
  });
});
