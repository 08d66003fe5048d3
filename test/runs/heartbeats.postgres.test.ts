// Heartbeats on PostgreSQL: a process's renewals of several runs go as one statement, each run fenced by its own
// token, so a stale lease among them is refused (LeaseLostError) while the others are renewed.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { LeaseLostError, PostgresRunStore, Scheduler, type RunLease } from "../../src/runs/index.js";
import { statementsSent, useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

describe("heartbeats on PostgreSQL", () => {
  it("renews the leases of three runs in one statement, and refuses only the one canceled meanwhile", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    try {
      const store = PostgresRunStore.open(db);
      const scheduler = new Scheduler(store);
      const leases: RunLease[] = [];
      for (const thread of ["a", "b", "c"]) {
        const { runId } = await store.create({ graphId: "g", threadId: thread });
        const claimed = await scheduler.claimRun(runId, { workerId: "w", leaseMs: 600 });
        leases.push(claimed!.lease);
      }
      const { sent } = await statementsSent(() => Promise.all(leases.map((lease) => lease.renew())));
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^UPDATE runs r SET lease_expires_at = b\.expires\s+FROM unnest/);
      for (const lease of leases) expect((await store.get(lease.runId)).lease?.expiresAt).toBe(lease.expiresAt);

      const [kept, canceled] = [leases[0]!, leases[1]!];
      await store.cancel(canceled.runId);
      const results = await Promise.allSettled(leases.map((lease) => lease.renew()));
      expect(results[0]?.status).toBe("fulfilled");
      expect(results[2]?.status).toBe("fulfilled");
      expect(results[1]?.status === "rejected" && results[1].reason instanceof LeaseLostError).toBe(true);
      expect(canceled.lost).toBe(true);
      expect(kept.lost).toBe(false);
    } finally {
      await db.close();
    }
  });
});
