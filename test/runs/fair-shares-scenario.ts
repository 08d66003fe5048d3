// The skewed load both backends' fair-share tests run: one tenant with 1,000 queued runs, queued first, then ten
// tenants with 10 each; claims one after another through a Scheduler with fair shares (the big tenant weighs 3).
import { expect } from "vitest";
import { Scheduler, type RunStore } from "../../src/runs/index.js";

export const BIG = "big";
export const SMALL = Array.from({ length: 10 }, (_, i) => `small${i}`);
const WEIGHTS = { [BIG]: 3 };
/** Claims per round of stride scheduling: the weights' sum. */
const ROUND = 3 + SMALL.length;

/** Queues the skewed load; small0's last run has priority 5, so it is the first of small0's runs claimed. */
export async function queueSkewedLoad(store: RunStore): Promise<{ urgent: string }> {
  for (let i = 0; i < 1000; i++) await store.create({ graphId: "g", userId: BIG });
  let urgent = "";
  for (let i = 0; i < 10; i++) {
    for (const tenant of SMALL) {
      const priority = tenant === "small0" && i === 9 ? 5 : 0;
      const run = await store.create({ graphId: "g", userId: tenant, priority });
      if (priority === 5) urgent = run.runId;
    }
  }
  return { urgent };
}

/** Claims `n` runs in turn; the tenant of each, and small0's first claimed run. */
export async function claimInTurn(store: RunStore, n: number): Promise<{ tenants: string[]; firstOfSmall0: string | undefined }> {
  const scheduler = new Scheduler(store, { tenantWeights: WEIGHTS });
  const tenants: string[] = [];
  let firstOfSmall0: string | undefined;
  for (let i = 0; i < n; i++) {
    const claimed = await scheduler.claimNext({ workerId: "w", leaseMs: 600_000 });
    if (claimed === undefined) break;
    tenants.push(claimed.run.userId);
    if (claimed.run.userId === "small0") firstOfSmall0 ??= claimed.run.runId;
  }
  return { tenants, firstOfSmall0 };
}

/**
 * Asserts the fair-share bounds: every small tenant starts within the first round's claims, and over 8 rounds (all
 * tenants backlogged: the small ones have 10 runs each) each tenant's share is within ±10 % of its weight's.
 */
export function expectFairShares(tenants: string[]): void {
  for (const tenant of SMALL) {
    const first = tenants.indexOf(tenant);
    expect(first, `${tenant}'s first claim`).toBeGreaterThanOrEqual(0);
    expect(first, `${tenant}'s first claim`).toBeLessThan(ROUND);
  }
  const window = tenants.slice(0, 8 * ROUND);
  expect(window).toHaveLength(8 * ROUND);
  for (const [tenant, weight] of [[BIG, 3], ...SMALL.map((t) => [t, 1] as const)] as const) {
    const share = window.filter((t) => t === tenant).length / window.length;
    const due = weight / ROUND;
    expect(share, `${tenant}'s share`).toBeGreaterThanOrEqual(due * 0.9);
    expect(share, `${tenant}'s share`).toBeLessThanOrEqual(due * 1.1);
  }
}
