/**
 * Fair shares among tenants, both backends: stride scheduling. Each tenant (a run's tenant is its user) has a
 * virtual time, its `pass`, in the tenant_shares table; a claim takes the best run (priority, then age) of the
 * tenant with the lowest pass that has a claimable run, and advances that pass by 1 / weight. Over any window in
 * which tenants stay backlogged, each one's claims are then proportional to its weight, whatever the queue lengths:
 * a tenant with 1,000 queued runs does not delay a tenant with 10 by more than a round of the others' claims.
 * @module
 */
import { UserInputError } from "../errors.js";

/** Fair shares: each tenant's weight (a positive number; 1 for a tenant not listed). */
export interface FairShares {
  weights: Readonly<Record<string, number>>;
}

/** How far one claim advances `tenant`'s pass. */
export function passStep(shares: FairShares, tenant: string): number {
  return 1 / (shares.weights[tenant] ?? 1);
}

/** Throws BAD_INPUT unless every weight is a finite number above 0. */
export function assertWeights(weights: Readonly<Record<string, number>>): void {
  for (const [tenant, weight] of Object.entries(weights)) {
    if (!(Number.isFinite(weight) && weight > 0)) {
      throw new UserInputError("BAD_INPUT", `tenant weight of ${tenant} must be a number above 0 (got ${weight})`);
    }
  }
}

/** Parses one `NAME=WEIGHT` (e.g. the CLI's `--tenant-weight acme=3`); throws BAD_INPUT with a one-line reason. */
export function parseTenantWeight(text: string): [string, number] {
  const at = text.lastIndexOf("=");
  const name = text.slice(0, at).trim();
  const weight = Number(text.slice(at + 1));
  if (at <= 0 || name === "" || text.slice(at + 1).trim() === "" || !(Number.isFinite(weight) && weight > 0)) {
    throw new UserInputError("BAD_INPUT", `--tenant-weight expects NAME=WEIGHT with a weight above 0 (got "${text}")`);
  }
  return [name, weight];
}
