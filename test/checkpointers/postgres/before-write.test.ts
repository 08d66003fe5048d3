// beforeWrite on PostgreSQL: the fence hook runs on the write's own transaction client; throwing refuses the
// write whole, rows the hook writes commit (or roll back) with the checkpoint.
import { uuid6, type Checkpoint } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { PostgresSaver } from "agentrt/checkpointers";
import { useTestSchema } from "../../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

const meta = { source: "loop" as const, step: 0, parents: {} };
const checkpoint = (step: number, values: Record<string, unknown>): Checkpoint => ({
  v: 4,
  id: uuid6(step),
  ts: new Date().toISOString(),
  channel_values: values,
  channel_versions: Object.fromEntries(Object.keys(values).map((key) => [key, step + 1])),
  versions_seen: {},
});

class Refused extends Error {}

const countRows = async (saver: PostgresSaver, table: string) => Number((await saver.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

describe("PostgresSaver beforeWrite", () => {
  it("refuses a put or putWrites by throwing: the previous checkpoint stays whole and nothing of the refused write is stored", async () => {
    let refuse = false;
    const seen: unknown[] = [];
    const saver = PostgresSaver.fromConnString(schema.fresh("r").url, {
      beforeWrite: async (client, config) => {
        // The hook sees the transaction: a query here runs before the checkpoint's rows.
        await client.query("SELECT 1");
        seen.push(config.configurable?.tag);
        if (refuse) throw new Refused("not yours");
      },
    });
    try {
      const stored = checkpoint(0, { a: "first", b: "kept" });
      const first = await saver.put({ configurable: { thread_id: "t", tag: "p1" } }, stored, meta, { a: 1, b: 1 });
      await saver.putWrites({ configurable: { ...first.configurable, tag: "w0" } }, [["a", "pending"]], "task0");
      refuse = true;
      const next = checkpoint(1, { a: "second", b: "kept", c: "new" });
      await expect(saver.put({ configurable: { ...first.configurable, tag: "p2" } }, next, meta, { a: 2, c: 2 })).rejects.toBeInstanceOf(Refused);
      await expect(saver.putWrites({ configurable: { ...first.configurable, tag: "w1" } }, [["a", 5]], "task1")).rejects.toBeInstanceOf(Refused);
      const tuple = await saver.getTuple({ configurable: { thread_id: "t" } });
      expect(tuple?.checkpoint.id).toBe(stored.id);
      expect(tuple?.checkpoint.channel_values).toEqual({ a: "first", b: "kept" });
      expect(tuple?.pendingWrites).toEqual([["task0", "a", "pending"]]);
      // Not even the refused put's channel values are left behind.
      expect(await countRows(saver, "checkpoints")).toBe(1);
      expect(await countRows(saver, "checkpoint_blobs")).toBe(2);
      expect(await countRows(saver, "checkpoint_writes")).toBe(1);
      expect(seen).toEqual(["p1", "w0", "p2", "w1"]);
    } finally {
      await saver.close();
    }
  });

  it("commits the hook's own rows with the checkpoint, and rolls them back with a failed write, calling its undo", async () => {
    const url = schema.fresh("a").url;
    const plain = PostgresSaver.fromConnString(url);
    await plain.setup();
    await plain.db.query("CREATE TABLE audit (note TEXT)");
    let undone = 0;
    const audited = new PostgresSaver(plain.db, undefined, {
      beforeWrite: async (client, config) => {
        await client.query("INSERT INTO audit VALUES ($1)", [String(config.configurable?.thread_id)]);
        return () => undone++;
      },
    });
    try {
      await audited.put({ configurable: { thread_id: "t" } }, checkpoint(0, { a: 1 }), meta, { a: 1 });
      expect((await plain.db.query("SELECT note FROM audit")).rows).toEqual([{ note: "t" }]);
      expect(undone).toBe(0);
      // The statement after the hook fails (a CHECK the checkpoint breaks): the audit row goes with it.
      await plain.db.query("ALTER TABLE checkpoints ADD CONSTRAINT no_u CHECK (thread_id <> 'u')");
      await expect(audited.put({ configurable: { thread_id: "u" } }, checkpoint(1, { a: 2 }), meta, { a: 2 })).rejects.toThrow(/no_u/);
      expect(undone).toBe(1);
      expect((await plain.db.query("SELECT note FROM audit")).rows).toEqual([{ note: "t" }]);
      expect(await countRows(plain, "checkpoint_blobs")).toBe(1);
    } finally {
      await plain.close();
    }
  });
});
