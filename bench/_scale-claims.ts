// Scale, claims: how long one claim takes while L other runs hold a lease (0, 10k, 50k), the leased rows inserted
// directly (RUNNING under a worker that never finishes them, spread over 1,000 users), so only the claim's own
// statements are timed: a create, then a timed claimNext, one after another on one connection pool.
import { parseDatabaseTarget, type PostgresTarget } from "../src/db/database-target.js";
import { PostgresDatabase } from "../src/db/postgres/index.js";
import { PostgresRunStore } from "../src/runs/index.js";
import { percentile } from "./_scale-pg.js";

const CAPS = { maxRunning: Infinity, maxRunningPerUser: Infinity, userLimits: {} };

/** Claim latency with `leased` runs holding a lease. */
export interface ClaimFigures {
  leased: number;
  claims: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
}

/** Times `claims` claims on `url`'s (fresh) schema after `leased` leased rows were inserted. */
export async function measureClaims(url: string, leased: number, claims: number): Promise<ClaimFigures> {
  const db = new PostgresDatabase(parseDatabaseTarget(url) as PostgresTarget);
  try {
    const store = PostgresRunStore.open(db);
    await store.ready();
    const now = Date.now();
    // In batches: one statement of 50k rows outlasts the pool's statement timeout on a loaded machine.
    for (let from = 1; from <= leased; from += 5000) {
      await db.query(
        `INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, attempts, max_attempts, available_at, lease_owner, lease_expires_at,
           fencing_token, created_at, updated_at, started_at)
         SELECT 'leased_' || i, 'thread_leased_' || i, 'g', 'user_' || (i % 1000), 'RUNNING', 1, 3, $1, 'bench-ghost-' || (i % 50), $2, 1, $1, $1, $1
         FROM generate_series($3::int, $4::int) AS i`,
        [now, now + 3_600_000, from, Math.min(leased, from + 4999)],
      );
    }
    await db.query("ANALYZE runs");
    const times: number[] = [];
    for (let i = 0; i < claims; i++) {
      await store.create({ graphId: "g", userId: `user_${i % 1000}` });
      const start = performance.now();
      const claimed = await store.claimNext({ workerId: "bench-claimer", leaseMs: 3_600_000, caps: CAPS });
      times.push(performance.now() - start);
      if (claimed === undefined) throw new Error("bench scale: a claim found nothing to claim");
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      leased, claims,
      p50_ms: Number(percentile(sorted, 50).toFixed(2)),
      p99_ms: Number(percentile(sorted, 99).toFixed(2)),
      mean_ms: Number((times.reduce((s, t) => s + t, 0) / times.length).toFixed(2)),
    };
  } finally {
    await db.close();
  }
}
