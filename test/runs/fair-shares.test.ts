// Fair shares on SQLite: under a skewed load (one tenant with 1,000 queued runs, ten with 10) each small tenant
// starts within one round of claims, shares follow the weights while all are backlogged, priority orders within a tenant.
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../src/runs/index.js";
import { parseTenantWeight } from "../../src/runs/fair-shares.js";
import { claimInTurn, expectFairShares, queueSkewedLoad } from "./fair-shares-scenario.js";
import { freshStore } from "./helpers.js";

describe("fair shares on SQLite", () => {
  it("bounds each small tenant's first start and keeps shares within ±10 % of the weights", async () => {
    const { db, store } = freshStore();
    try {
      const { urgent } = await queueSkewedLoad(store);
      const { tenants, firstOfSmall0 } = await claimInTurn(store, 8 * 13);
      expectFairShares(tenants);
      expect(firstOfSmall0).toBe(urgent);
    } finally {
      db.close();
    }
  });

  it("claims by priority, then age, across users without tenant weights", async () => {
    const { db, store } = freshStore();
    try {
      await queueSkewedLoad(store);
      const claimed = await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 60_000 });
      expect(claimed?.run).toMatchObject({ userId: "small0", priority: 5 });
      const next = await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 60_000 });
      expect(next?.run.userId).toBe("big");
    } finally {
      db.close();
    }
  });

  it("refuses a weight that is not above 0, in one line", () => {
    expect(() => new Scheduler(freshStore().store, { tenantWeights: { acme: 0 } })).toThrow(expect.objectContaining({ code: "BAD_INPUT" }));
    expect(parseTenantWeight("acme=2.5")).toEqual(["acme", 2.5]);
    expect(() => parseTenantWeight("acme")).toThrow(/NAME=WEIGHT/);
    expect(() => parseTenantWeight("acme=-1")).toThrow(/NAME=WEIGHT/);
  });
});
