/**
 * Caps on PostgreSQL without a schema-wide lock. Row locks alone cannot keep a cap: two claimers each counting
 * N - 1 held leases under READ COMMITTED would both claim. So a claim under a finite cap takes a transaction-scoped
 * advisory lock for that cap alone — one per user with a cap, and one for the total only when a total cap is set —
 * and counts the held leases after it: only claims add a held lease, and every claim under that cap holds the lock
 * until it commits, so the count stays true until this one commits. Counting from the runs rows (not a counter kept
 * beside them) means a crash, a lost lease or any status change releases its slot by itself. A per-user count
 * reads the user's held leases alone (an index of held runs), at most its cap; claims with no cap take no lock.
 * @module
 */
import type { PgQueryable } from "../db/postgres/index.js";
import { userCap } from "./claim-rules.js";
import { pgRows } from "./postgres-run-rows.js";
import type { ClaimCaps } from "./run-store.js";

/** A run holding a lease (alias `h`): RUNNING, or RETRYING backing off in its holder's process. */
export const HELD = "h.status IN ('RUNNING', 'RETRYING') AND h.lease_owner IS NOT NULL";

/** The advisory lock key of one cap: 'total', or 'user:<id>', within this schema. */
const LOCK = "SELECT pg_advisory_xact_lock(hashtextextended('agentrt_runs_cap:' || current_schema() || ':' || $1, 0))";

/** Whether any per-user cap is finite. */
export function hasUserCaps(caps: ClaimCaps): boolean {
  return caps.maxRunningPerUser !== Infinity || Object.values(caps.userLimits).some((cap) => cap !== Infinity);
}

/**
 * A filter on candidate `r` (SQL) that passes over users already at their cap, by a count read without the lock:
 * a hint that saves a round trip, which {@link underCaps} confirms under the lock. `$n` is the userLimits JSON,
 * `$n+1` maxRunningPerUser; empty when no per-user cap is finite.
 */
export function userCapFilter(caps: ClaimCaps, n: number): string {
  if (!hasUserCaps(caps)) return "";
  const cap = `COALESCE(($${n}::jsonb ->> r.user_id)::float8, $${n + 1}::float8)`;
  // CASE: a user without a cap is not counted (its held leases may be many).
  return `AND CASE WHEN ${cap} = 'Infinity'::float8 THEN true ELSE (SELECT count(*) FROM runs h WHERE h.user_id = r.user_id AND ${HELD}) < ${cap} END`;
}

/** The values of {@link userCapFilter}: caps may be Infinity, which JSON lacks, so an unlimited one travels as text. */
export function userCapValues(caps: ClaimCaps): [string, number] {
  return [JSON.stringify(caps.userLimits, (_key, value: unknown) => (value === Infinity ? "Infinity" : value)), caps.maxRunningPerUser];
}

/** Takes the total cap's lock when a total cap is set; call before any cap's other lock (one order, no deadlock). */
export async function lockTotal(on: PgQueryable, caps: ClaimCaps): Promise<void> {
  if (caps.maxRunning !== Infinity) await on.query(LOCK, ["total"]);
}

/**
 * Whether a run of `userId` may be claimed now: 'total' when the total cap is reached (take {@link lockTotal}
 * first), 'user' when the user's is, else 'ok' — the user's lock is then held until commit.
 */
export async function underCaps(on: PgQueryable, caps: ClaimCaps, userId: string): Promise<"ok" | "total" | "user"> {
  if (caps.maxRunning !== Infinity) {
    const [row] = await pgRows(on, `SELECT count(*)::float8 AS n FROM runs h WHERE ${HELD}`);
    if (Number(row?.n) >= caps.maxRunning) return "total";
  }
  const cap = userCap(caps, userId);
  if (cap === Infinity) return "ok";
  await on.query(LOCK, [`user:${userId}`]);
  const [row] = await pgRows(on, `SELECT count(*)::float8 AS n FROM runs h WHERE h.user_id = $1 AND ${HELD}`, [userId]);
  return Number(row?.n) >= cap ? "user" : "ok";
}
