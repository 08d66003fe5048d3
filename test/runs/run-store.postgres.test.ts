// The run store's conformance suite on PostgreSQL (the machine's server, a fresh schema per test): two stores on
// two pools, as two processes would have; plus what only PostgreSQL has to prove: concurrent claimers on separate
// connections never exceed a cap nor claim a run twice.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { openDatabase } from "../../src/db/index.js";
import { PostgresDatabase, readPostgresVersion } from "../../src/db/postgres/index.js";
import { PostgresRunStore, RUNS_PG_SCHEMA, Scheduler } from "../../src/runs/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { describeRunStoreConformance } from "./conformance/run-store.js";
import { fakeClock } from "./helpers.js";

const schema = useTestSchema(import.meta.url);
const ROLLBACK = new Error("roll back");

function database(url: string): PostgresDatabase {
  return new PostgresDatabase(parseDatabaseTarget(url) as PostgresTarget);
}

describeRunStoreConformance("PostgreSQL", async () => {
  const { url } = schema.fresh("c");
  const clock = fakeClock();
  const db = database(url);
  const otherDb = database(url);
  const store = PostgresRunStore.open(db, { clock });
  await store.ready();
  return {
    store,
    other: PostgresRunStore.open(otherDb, { clock }),
    clock,
    async transaction(work, options = {}) {
      await db
        .transaction(async (client) => {
          await work({ backend: "postgres", client });
          if (options.rollback === true) throw ROLLBACK;
        })
        .catch((error: unknown) => {
          if (error !== ROLLBACK) throw error;
        });
    },
    foreignTransaction: { backend: "sqlite", db: openDatabase(":memory:") },
    close: async () => {
      await Promise.all([db.close(), otherDb.close()]);
    },
  };
});

describe("PostgresRunStore", () => {
  it("migrates on first use, and says DB_SCHEMA_TOO_NEW once a newer agentrt has migrated the tables", async () => {
    const db = database(schema.fresh("v").url);
    try {
      const store = PostgresRunStore.open(db);
      expect((await store.create({ graphId: "g" })).status).toBe("QUEUED");
      expect(await readPostgresVersion(db, "runs")).toBe(RUNS_PG_SCHEMA.migrations.length);
      await store.assertSchemaCurrent();
      await db.query("UPDATE agentrt_schema SET version = version + 1 WHERE module = 'runs'");
      await expect(store.assertSchemaCurrent()).rejects.toMatchObject({ code: "DB_SCHEMA_TOO_NEW" });
      await expect(PostgresRunStore.open(db).ready()).rejects.toMatchObject({ code: "DB_SCHEMA_TOO_NEW" });
      await db.close();
      expect(await store.changeStamp()).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it("runs only the oldest run of each thread when two stores claim at once", async () => {
    const { url } = schema.fresh("ct");
    const clock = fakeClock();
    const dbs = [database(url), database(url)];
    try {
      const [a, b] = dbs.map((db) => PostgresRunStore.open(db, { clock })) as [PostgresRunStore, PostgresRunStore];
      const oldest = new Map<string, string>();
      for (let i = 0; i < 20; i++) {
        const run = await a.create({ graphId: "g", threadId: `t${i % 4}`, priority: i });
        if (!oldest.has(run.threadId)) oldest.set(run.threadId, run.runId);
        clock.advance(1);
      }
      const claimers = [new Scheduler(a), new Scheduler(b)];
      await Promise.all(Array.from({ length: 20 }, (_, i) => claimers[i % 2]!.claimNext({ workerId: `w${i}`, leaseMs: 60_000 })));
      const running = await b.list({ status: "RUNNING" });
      expect(running.map((run) => run.runId).sort()).toEqual([...oldest.values()].sort());
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it("never exceeds a cap nor claims a run twice when two stores claim 20 runs at once", async () => {
    const { url } = schema.fresh("cc");
    const clock = fakeClock();
    const dbs = [database(url), database(url)];
    try {
      const [a, b] = dbs.map((db) => PostgresRunStore.open(db, { clock })) as [PostgresRunStore, PostgresRunStore];
      for (let i = 0; i < 20; i++) await a.create({ graphId: "g", userId: i % 2 === 0 ? "ann" : "bob" });
      const caps = { maxRunning: 6, maxRunningPerUser: 4, userLimits: { bob: 2 } };
      const claimers = [new Scheduler(a, caps), new Scheduler(b, caps)];
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claimers[i % 2]!.claimNext({ workerId: `w${i}`, leaseMs: 60_000 })),
      );
      const claimed = claims.flatMap((c) => (c === undefined ? [] : [c.run]));
      expect(new Set(claimed.map((run) => run.runId)).size).toBe(claimed.length);
      const running = await a.list({ status: "RUNNING" });
      expect(running).toHaveLength(6);
      expect(running.filter((run) => run.userId === "bob")).toHaveLength(2);
      expect(running.filter((run) => run.userId === "ann")).toHaveLength(4);
      expect(claimed.map((run) => run.runId).sort()).toEqual(running.map((run) => run.runId).sort());
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });
});
