// agentrt's PostgresSaver: the shared saver conformance, plus what is PostgreSQL's own (storage of changed
// channels only, several savers on one schema).
import { describe, expect, it } from "vitest";
import { PostgresSaver } from "agentrt/checkpointers";
import { useTestSchema, statementsSent } from "../../helpers/postgres.js";
import { checkpoint, describeSaverConformance } from "../conformance/saver.js";

const schema = useTestSchema(import.meta.url);

const countRows = async (saver: PostgresSaver, table: string, where = "true") =>
  Number((await saver.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)).rows[0]?.n);

describeSaverConformance("PostgresSaver", async () => {
  const saver = PostgresSaver.fromConnString(schema.fresh("c").url);
  await saver.setup();
  return { saver, count: (table, where) => countRows(saver, table, where), close: () => saver.close() };
});

/** Queries sent by any pg client while `work` runs: each is one round trip to the server. */
async function roundTrips(work: () => Promise<unknown>): Promise<number> {
  return (await statementsSent(work)).sent.length;
}

describe("PostgresSaver", () => {
  it("costs one round trip per put, putWrites, getTuple and short list; with beforeWrite, two (BEGIN with the hook's statement, the write with COMMIT)", async () => {
    const url = schema.fresh("rt").url;
    const saver = PostgresSaver.fromConnString(url);
    const fenced = new PostgresSaver(saver.db, undefined, { beforeWrite: (client) => client.query("SELECT 1").then(() => undefined) });
    try {
      await saver.setup();
      await fenced.setup();
      const meta = { source: "loop" as const, step: 0, parents: {} };
      const values = { a: 1, b: "two", c: [3] };
      let config = await saver.put({ configurable: { thread_id: "t" } }, checkpoint(values, { a: 1, b: 1, c: 1 }), meta, { a: 1, b: 1, c: 1 });
      expect(await roundTrips(async () => (config = await saver.put(config, checkpoint(values, { a: 2, b: 2, c: 1 }), meta, { a: 2, b: 2 })))).toBe(1);
      expect(await roundTrips(() => saver.putWrites(config, [["a", 1], ["b", 2], ["__error__", "x"]], "task"))).toBe(1);
      expect(await roundTrips(() => saver.getTuple({ configurable: { thread_id: "t" } }))).toBe(1);
      expect(await roundTrips(() => saver.getTuple(config))).toBe(1);
      expect(await roundTrips(async () => { for await (const _ of saver.list({ configurable: { thread_id: "t" } })) void _; })).toBe(1);
      expect(await roundTrips(() => saver.getDeltaChannelHistory({ config, channels: ["a"] }))).toBe(1);
      expect(await roundTrips(async () => (config = await fenced.put(config, checkpoint(values, { a: 3, b: 2, c: 1 }), meta, { a: 3 })))).toBe(2);
      expect(await roundTrips(() => fenced.putWrites(config, [["a", 1]], "task"))).toBe(2);
    } finally {
      await saver.close();
    }
  });

  it("serves a read-only view: its own reads, no history of skipped channels, no writes", async () => {
    const saver = PostgresSaver.fromConnString(schema.fresh("v").url);
    try {
      const meta = { source: "loop" as const, step: 0, parents: {} };
      const first = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ a: "A1", b: "B1" }, { a: 1, b: 1 }), meta, { a: 1, b: 1 });
      await saver.putWrites(first, [["a", "A2"], ["b", "B2"]], "task");
      const second = await saver.put(first, checkpoint({}, { a: 2, b: 2 }), meta, { a: 2, b: 2 });
      const view = saver.readOnlyView({ shared: new Set(["a"]), skipped: new Set(["a"]) });
      expect(await view.getTuple(second)).toEqual(await saver.getTuple(second));
      const history = await view.getDeltaChannelHistory({ config: second, channels: ["a", "b"] });
      expect(history.a).toEqual({ writes: [] });
      expect(history.b).toEqual((await saver.getDeltaChannelHistory({ config: second, channels: ["b"] })).b);
      expect(history.b?.writes.map(([, , value]) => value)).toEqual(["B2"]);
      await expect(view.put(second, checkpoint({}, {}), meta, {})).rejects.toThrow(/read-only/);
    } finally {
      await saver.close();
    }
  });

  it("stores only the channels in newVersions; a checkpoint finds the others by its channel_versions", async () => {
    const saver = PostgresSaver.fromConnString(schema.fresh("n").url);
    try {
      const meta = { source: "loop" as const, step: 0, parents: {} };
      const first = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ a: "A1", b: "B1", c: "C1" }, { a: 1, b: 1, c: 1 }), meta, { a: 1, b: 1, c: 1 });
      // Only b changed: a and c stay the first checkpoint's rows. A channel named in newVersions but absent
      // from channel_values (an emptied channel, a DeltaChannel between snapshots) stores nothing.
      const second = await saver.put(first, checkpoint({ a: "A1", b: "B2", c: "C1" }, { a: 1, b: 2, c: 1, d: 1 }), meta, { b: 2, d: 1 });
      expect(await countRows(saver, "checkpoint_blobs")).toBe(4);
      expect(await countRows(saver, "checkpoint_blobs", "channel = 'b'")).toBe(2);
      expect(await countRows(saver, "checkpoint_blobs", "channel = 'd'")).toBe(0);
      expect((await saver.getTuple(second))?.checkpoint.channel_values).toEqual({ a: "A1", b: "B2", c: "C1" });
      expect((await saver.getTuple(first))?.checkpoint.channel_values).toEqual({ a: "A1", b: "B1", c: "C1" });
    } finally {
      await saver.close();
    }
  });

  it("keeps metadata JSONB cannot hold (a NUL, a lone surrogate) as bytes: it reads back whole, only SQL filters skip it", async () => {
    const saver = PostgresSaver.fromConnString(schema.fresh("m").url);
    try {
      const odd = { source: "loop" as const, step: 1, parents: {}, note: "nul \u0000 and lone \ud800" };
      const config = await saver.put({ configurable: { thread_id: "t" } }, checkpoint({ a: 1 }, { a: 1 }), odd, { a: 1 });
      await saver.put(config, checkpoint({ a: 2 }, { a: 2 }), { source: "loop", step: 2, parents: {} }, { a: 2 });
      expect((await saver.getTuple(config))?.metadata).toEqual(odd);
      const steps: unknown[] = [];
      for await (const tuple of saver.list({ configurable: { thread_id: "t" } }, { filter: { source: "loop" } })) steps.push(tuple.metadata?.step);
      expect(steps).toEqual([2]);
    } finally {
      await saver.close();
    }
  });

  it("takes concurrent puts and writes from two savers (two pools) on one schema, migrating it once", async () => {
    const url = schema.fresh("two").url;
    const savers = [PostgresSaver.fromConnString(url), PostgresSaver.fromConnString(url)];
    try {
      const meta = { source: "loop" as const, step: 0, parents: {} };
      // Both savers' first calls race to create the tables; then 2 × 20 puts on one shared thread and one each.
      await Promise.all(
        savers.flatMap((saver, s) =>
          Array.from({ length: 20 }, async (_, i) => {
            const shared = checkpoint({ shared: "same value", own: `${s}-${i}` }, { shared: 1, own: 100 * s + i + 1 });
            const config = await saver.put({ configurable: { thread_id: "shared" } }, shared, meta, { shared: 1, own: 100 * s + i + 1 });
            await saver.putWrites(config, [["own", i]], `task-${s}`);
            await saver.put({ configurable: { thread_id: `own-${s}` } }, checkpoint({ n: i }, { n: i + 1 }), meta, { n: i + 1 });
          }),
        ),
      );
      expect(await countRows(savers[0]!, "checkpoints", "thread_id = 'shared'")).toBe(40);
      // The value both wrote under the same (channel, version) is one row; every checkpoint reads it.
      expect(await countRows(savers[0]!, "checkpoint_blobs", "channel = 'shared'")).toBe(1);
      expect(await countRows(savers[1]!, "checkpoint_writes")).toBe(40);
      for (const s of [0, 1]) expect(await countRows(savers[0]!, "checkpoints", `thread_id = 'own-${s}'`)).toBe(20);
      let seen = 0;
      for await (const tuple of savers[1]!.list({ configurable: { thread_id: "shared" } })) {
        expect(tuple.checkpoint.channel_values.shared).toBe("same value");
        expect(tuple.pendingWrites).toHaveLength(1);
        seen += 1;
      }
      expect(seen).toBe(40);
    } finally {
      await Promise.all(savers.map((saver) => saver.close()));
    }
  });
});
