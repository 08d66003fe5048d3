/**
 * Fair shares on SQLite (see fair-shares.ts): the pick of a claim under stride scheduling. Claims on one file are
 * serial (BEGIN IMMEDIATE), so the tenant rows need no locking here.
 * @module
 */
import { EARLIER_ON_THREAD, userCap } from "./claim-rules.js";
import { passStep, type FairShares } from "./fair-shares.js";
import type { ClaimCaps } from "./run-store.js";
import type { SqliteRuns } from "./sqlite-runs.js";

/** A run a claim may take: what the claim order needs of it. */
export interface Candidate {
  run_id: string;
  user_id: string;
  priority: number;
  created_at: number;
}

// A run of tenant `?` claimable at `?` (alias `r`); runs_claimable_by_user holds these but available_at.
const ELIGIBLE = `r.user_id = ? AND r.status IN ('QUEUED', 'RETRYING') AND r.available_at <= ? AND r.lease_owner IS NULL
  AND NOT ${EARLIER_ON_THREAD}`;

/**
 * The best eligible run (priority, then age) of the tenant with the lowest pass that has one and is under its
 * cap, that tenant's pass advanced by 1 / weight; undefined when no tenant has one. Call inside the claim's transaction.
 */
export function sharedCandidate(
  runs: SqliteRuns, caps: ClaimCaps, shares: FairShares, now: number, runningByUser: Map<string, number>,
): Candidate | undefined {
  const tenants = runs
    .stmt(`SELECT tenant FROM tenant_shares t WHERE EXISTS (SELECT 1 FROM runs r WHERE ${ELIGIBLE.replace("r.user_id = ?", "r.user_id = t.tenant")}) ORDER BY pass, tenant`)
    .all(now) as { tenant: string }[];
  for (const { tenant } of tenants) {
    if ((runningByUser.get(tenant) ?? 0) >= userCap(caps, tenant)) continue;
    const run = runs
      .stmt(`SELECT run_id, user_id, priority, created_at FROM runs r WHERE ${ELIGIBLE} ORDER BY priority DESC, created_at, run_id LIMIT 1`)
      .get(tenant, now) as Candidate | undefined;
    if (run === undefined) continue;
    runs.stmt("UPDATE tenant_shares SET pass = pass + ? WHERE tenant = ?").run(passStep(shares, tenant), tenant);
    return run;
  }
  return undefined;
}
