// Fair shares on PostgreSQL: the skewed load of fair-shares-scenario.ts, claimed in turn; then the same load claimed
// by four stores at once, which take no run twice and pass over the tenant rows the others hold (SKIP LOCKED).
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { PostgresRunStore, Scheduler } from "../../src/runs/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { claimInTurn, expectFairShares, queueSkewedLoad, SMALL } from "./fair-shares-scenario.js";
import { fakeClock } from "./helpers.js";

const schema = useTestSchema(import.meta.url);
const database = (url: string) => new PostgresDatabase(parseDatabaseTarget(url) as PostgresTarget);

describe("fair shares on PostgreSQL", () => {
  it("bounds each small tenant's first start and keeps shares within ±10 % of the weights", async () => {
    const db = database(schema.fresh("fs").url);
    try {
      const store = PostgresRunStore.open(db, { clock: fakeClock() });
      const { urgent } = await queueSkewedLoad(store);
      const { tenants, firstOfSmall0 } = await claimInTurn(store, 8 * 13);
      expectFairShares(tenants);
      expect(firstOfSmall0).toBe(urgent);
    } finally {
      await db.close();
    }
  }, 120_000);

  // Concurrent claimers sort the tenant rows as they were when each began, and one may lock a row another has just
  // advanced: the bound is then two rounds of claims rather than one.
  it("gives every small tenant a run within two rounds of claims by four concurrent claimers, each run once", async () => {
    const { url } = schema.fresh("fc");
    const clock = fakeClock();
    const dbs = [database(url), database(url), database(url), database(url)];
    try {
      const stores = dbs.map((db) => PostgresRunStore.open(db, { clock }));
      await queueSkewedLoad(stores[0]!);
      const schedulers = stores.map((store) => new Scheduler(store, { tenantWeights: { big: 3 } }));
      const claimed = (await Promise.all(
        Array.from({ length: 26 }, (_, i) => schedulers[i % 4]!.claimNext({ workerId: `w${i}`, leaseMs: 600_000 })),
      )).flatMap((c) => (c === undefined ? [] : [c.run]));
      expect(new Set(claimed.map((run) => run.runId)).size).toBe(claimed.length);
      expect(claimed).toHaveLength(26);
      for (const tenant of SMALL) expect(claimed.some((run) => run.userId === tenant), tenant).toBe(true);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  }, 120_000);

  // More claimers than tenants: every tenant row with work may be held by another claim in flight. A claim then
  // takes the best run anyway; before, it reported no work while 1,100 runs waited (a worker idled until its poll).
  it("claims a run while every tenant's row is held by other claims in flight", async () => {
    const { url } = schema.fresh("fh");
    const db = database(url);
    const holder = database(url);
    try {
      const store = PostgresRunStore.open(db, { clock: fakeClock() });
      await queueSkewedLoad(store);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const lockedAll = new Promise<void>((resolve) => (locked = resolve));
      const holding = holder.transaction(async (client) => {
        await client.query("SELECT tenant FROM tenant_shares FOR UPDATE");
        locked();
        await held;
      });
      await lockedAll;
      const claiming = new Scheduler(store, { tenantWeights: { big: 3 } }).claimNext({ workerId: "w", leaseMs: 600_000 });
      // The claim does not wait for the held rows (waiting could deadlock with their holder): it takes a run at once.
      const claim = await claiming;
      release();
      await holding;
      expect(claim?.run.status).toBe("RUNNING");
    } finally {
      await Promise.all([db.close(), holder.close()]);
    }
  }, 120_000);
});
