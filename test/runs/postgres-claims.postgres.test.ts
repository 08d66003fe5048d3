// Claims on PostgreSQL without a schema-wide lock: a claim goes ahead while another claim's transaction is still
// open, and the claim's plan reads the index of claimable runs, not the runs leased (50,000 of them here).
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { PostgresRunStore, Scheduler } from "../../src/runs/index.js";
import { overdueWhere, pickStatement } from "../../src/runs/postgres-claims.js";
import { userCapValues } from "../../src/runs/postgres-claim-caps.js";
import type { ClaimCaps } from "../../src/runs/run-store.js";
import { useTestSchema, withClient } from "../helpers/postgres.js";
import { fakeClock } from "./helpers.js";

const schema = useTestSchema(import.meta.url);
const NO_CAPS: ClaimCaps = { maxRunning: Infinity, maxRunningPerUser: Infinity, userLimits: {} };
const USER_CAPS: ClaimCaps = { maxRunning: Infinity, maxRunningPerUser: 5, userLimits: {} };

function database(url: string): PostgresDatabase {
  return new PostgresDatabase(parseDatabaseTarget(url) as PostgresTarget);
}

/** Resolves once some session waits for advisory lock `key` (the stalled claim has reached it). */
async function untilWaitingFor(key: number): Promise<void> {
  for (;;) {
    const waiting = await withClient((c) => c.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", [key]));
    if (waiting.rowCount !== 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("claims on PostgreSQL", () => {
  for (const [label, caps] of [["no cap", NO_CAPS], ["per-user caps", USER_CAPS]] as const) {
    it(`go ahead while another claim's transaction is open (${label}): no lock is shared by all claims`, async () => {
      const { name, url } = schema.fresh("open");
      const clock = fakeClock();
      const dbs = [database(url), database(url)];
      try {
        const [a, b] = dbs.map((db) => PostgresRunStore.open(db, { clock })) as [PostgresRunStore, PostgresRunStore];
        const ann = await a.create({ graphId: "g", userId: "ann", priority: 1 });
        await b.create({ graphId: "g", userId: "bob" });
        // The claim of ann's run stalls in its UPDATE, inside its transaction, until the test lets go of lock 4242.
        await withClient(async (c) => {
          await c.query(`CREATE FUNCTION ${name}.stall() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$`);
          await c.query(`CREATE TRIGGER stall BEFORE UPDATE ON ${name}.runs FOR EACH ROW
            WHEN (NEW.run_id = '${ann.runId}' AND NEW.status = 'RUNNING') EXECUTE FUNCTION ${name}.stall()`);
        });
        await withClient(async (holder) => {
          await holder.query("SELECT pg_advisory_lock(4242)");
          const first = new Scheduler(a, caps).claimNext({ workerId: "w1", leaseMs: 60_000 });
          await untilWaitingFor(4242);
          const second = await new Scheduler(b, caps).claimNext({ workerId: "w2", leaseMs: 60_000 });
          expect(second?.run.userId).toBe("bob");
          await holder.query("SELECT pg_advisory_unlock(4242)");
          expect((await first)?.run.runId).toBe(ann.runId);
        });
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
    }, 20_000);
  }

  it("plan the pick from the claimable runs' indexes, never a scan of the 50,000 runs leased", async () => {
    const { name, url } = schema.fresh("plan");
    const db = database(url);
    try {
      const store = PostgresRunStore.open(db, { clock: fakeClock() });
      await store.ready();
      const now = 1_700_000_000_000;
      // Loaded with triggers off (the change counter's and the tenant rows'): a bulk load's, not a claim's, cost.
      await withClient(async (c) => {
        await c.query(`SET search_path = ${name}; SET session_replication_role = replica`);
        await c.query(
          `INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, max_attempts, available_at, created_at, updated_at, lease_owner, lease_expires_at, fencing_token, attempts)
           SELECT 'run_l' || i, 'thread_l' || i, 'g', 'user_' || (i % 1000), 'RUNNING', 3, $1::bigint, $1::bigint + i, $1::bigint, 'w', $1::bigint + 3600000, 1, 1
           FROM generate_series(1, 50000) AS i`,
          [now],
        );
        await c.query(
          `INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, max_attempts, available_at, created_at, updated_at)
           SELECT 'run_q' || i, 'thread_q' || i, 'g', 'user_' || (i % 10), 'QUEUED', 3, $1::bigint, $1::bigint + i, $1::bigint FROM generate_series(1, 20) AS i`,
          [now],
        );
        await c.query("INSERT INTO tenant_shares (tenant, pass) SELECT DISTINCT user_id, 0 FROM runs");
      });
      await db.query("ANALYZE runs");
      for (const caps of [NO_CAPS, USER_CAPS, { ...NO_CAPS, shares: { weights: {} } }]) {
        const values = [now, [], ...(caps === USER_CAPS ? userCapValues(caps) : [])];
        const plan = (await db.query<{ "QUERY PLAN": string }>(`EXPLAIN ${pickStatement(caps)}`, values)).rows.map((row) => row["QUERY PLAN"]).join("\n");
        expect(plan).toMatch(/runs_claimable/);
        if (caps === USER_CAPS) expect(plan).toMatch(/runs_held_by_user/);
        expect(plan).not.toMatch(/Seq Scan on runs/);
      }
      const sweep = (await db.query<{ "QUERY PLAN": string }>(`EXPLAIN SELECT * FROM runs WHERE ${overdueWhere()}`, [now])).rows.map((row) => row["QUERY PLAN"]).join("\n");
      expect(sweep).not.toMatch(/Seq Scan on runs/);
    } finally {
      await db.close();
    }
  }, 60_000);
});
