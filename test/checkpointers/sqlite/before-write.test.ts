// beforeWrite: a hook inside each write's transaction that can refuse it or add rows of its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "agentrt/checkpointers";

const dir = mkdtempSync(join(tmpdir(), "agentrt-before-write-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const meta = { source: "loop" as const, step: 0, parents: {} };
const checkpoint = (step: number): Checkpoint => ({
  v: 4, id: uuid6(step), ts: new Date().toISOString(), channel_values: { a: step }, channel_versions: { a: step + 1 }, versions_seen: {},
});

class Refused extends Error {}

describe("SqliteSaver beforeWrite", () => {
  it("refuses a put or putWrites by throwing: the caller gets that error and nothing is stored", async () => {
    let refuse = false;
    const seen: unknown[] = [];
    const saver = SqliteSaver.create({
      path: join(dir, "refuse.db"),
      beforeWrite: (config) => {
        seen.push(config.configurable?.tag);
        if (refuse) throw new Refused("not yours");
      },
    });
    try {
      const stored = checkpoint(0);
      const first = await saver.put({ configurable: { thread_id: "t", tag: "p1" } }, stored, meta, { a: 1 });
      refuse = true;
      await expect(saver.put({ configurable: { ...first.configurable, tag: "p2" } }, checkpoint(1), meta, { a: 2 })).rejects.toBeInstanceOf(Refused);
      await expect(saver.putWrites({ configurable: { ...first.configurable, tag: "w1" } }, [["a", 5]], "task")).rejects.toBeInstanceOf(Refused);
      const tuple = await saver.getTuple({ configurable: { thread_id: "t" } });
      expect(tuple?.checkpoint.id).toBe(stored.id);
      expect(tuple?.pendingWrites).toEqual([]);
      expect(seen).toEqual(["p1", "p2", "w1"]);
    } finally {
      saver.close();
    }
  });

  it("commits the hook's own rows in the checkpoint's transaction; a call refused before it writes none", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "rows.db") });
    saver.db.exec("CREATE TABLE audit (note TEXT)");
    const audited = new SqliteSaver(saver.db, undefined, {
      beforeWrite: (config) => {
        saver.db.prepare("INSERT INTO audit VALUES (?)").run(String(config.configurable?.thread_id));
      },
    });
    try {
      await audited.put({ configurable: { thread_id: "t" } }, checkpoint(0), meta, { a: 1 });
      expect(saver.db.prepare("SELECT note FROM audit").pluck().all()).toEqual(["t"]);
      // No checkpoint_id: refused before the transaction opens, so no audit row either.
      await expect(audited.putWrites({ configurable: { thread_id: "t" } }, [["a", 1]], "task")).rejects.toThrow(/checkpoint_id/);
      expect(saver.db.prepare("SELECT note FROM audit").pluck().all()).toEqual(["t"]);
    } finally {
      saver.close();
    }
  });

  it("calls what the hook returned when the transaction fails after it", async () => {
    const saver = SqliteSaver.create({ path: join(dir, "undo.db") });
    let undone = 0;
    const guarded = new SqliteSaver(saver.db, undefined, { beforeWrite: () => () => undone++ });
    try {
      await guarded.put({ configurable: { thread_id: "t" } }, checkpoint(0), meta, { a: 1 });
      expect(undone).toBe(0);
      saver.db.exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON checkpoints BEGIN SELECT RAISE(ABORT, 'disk full'); END");
      await expect(guarded.put({ configurable: { thread_id: "t" } }, checkpoint(1), meta, { a: 2 })).rejects.toThrow(/disk full/);
      expect(undone).toBe(1);
    } finally {
      saver.close();
    }
  });

  it('cannot be combined with durability "group"', () => {
    expect(() => SqliteSaver.create({ path: join(dir, "group.db"), durability: "group", beforeWrite: () => undefined })).toThrow(/beforeWrite/);
  });
});
