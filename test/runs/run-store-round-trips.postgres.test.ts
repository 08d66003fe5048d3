// Round trips to PostgreSQL per run-store method, counted at the driver (pg's Client#query, as bench/_pg-round-trips.ts
// counts them): a lease holder's writes are one statement each, so a run's bookkeeping stays within the bench's budget.
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { PostgresRunStore, Scheduler } from "../../src/runs/index.js";
import { useTestSchema, statementsSent } from "../helpers/postgres.js";
import { fakeClock } from "./helpers.js";

const schema = useTestSchema(import.meta.url);

async function trips(op: () => Promise<unknown>): Promise<number> {
  return (await statementsSent(op)).sent.length;
}

describe("PostgresRunStore round trips", () => {
  it("writes a run's lease-holder bookkeeping in one statement per call", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    try {
      const clock = fakeClock();
      const store = PostgresRunStore.open(db, { clock });
      await store.ready();
      const scheduler = new Scheduler(store);
      const { runId } = await store.create({ graphId: "g" });
      expect(await trips(() => store.create({ graphId: "g", threadId: "other" }))).toBe(1);
      let claimed: Awaited<ReturnType<Scheduler["claimRun"]>>;
      // BEGIN with the sweep-and-read (no claim lock: no cap is set), the claim's write, COMMIT.
      expect(await trips(async () => (claimed = await scheduler.claimRun(runId, { workerId: "w", leaseMs: 1000 })))).toBe(3);
      const lease = claimed!.lease;
      expect(await trips(() => lease.renew())).toBe(1);
      expect(await trips(() => lease.addUsage({ steps: 1 }))).toBe(1);
      expect(await trips(() => lease.assertHeld())).toBe(1);
      expect(await trips(() => lease.check())).toBe(1);
      expect(await trips(() => lease.startBackoff("backoff"))).toBe(1);
      expect(await trips(() => lease.endBackoff("again"))).toBe(1);
      // BEGIN rides with the fence's statement, then COMMIT.
      expect(await trips(() => db.transaction((client) => store.fenceIn({ backend: "postgres", client }, runId, lease.token, { tokens: 3 })))).toBe(2);
      // Before a checkpoint's write (withWrite), the fence travels with it: BEGIN, fence, write and COMMIT in one send.
      const checkpointLike = (withWrite: boolean) => db.transaction(
        (client) => store.fenceIn({ backend: "postgres", client, withWrite }, runId, lease.token, { tokens: 2 }),
        { last: { text: "SELECT $1::int", values: [1] } },
      );
      expect(await trips(() => checkpointLike(true))).toBe(1);
      expect(await trips(() => checkpointLike(false))).toBe(2);
      lease.deferUsage({ modelCalls: 1 });
      expect(await trips(() => lease.transition("WAITING_INPUT", { pending: {} }))).toBe(1);
      expect(await trips(() => store.resume(runId, { resume: 1 }))).toBe(2);
      expect(await trips(() => store.changeStamp())).toBe(1);
      expect(await store.get(runId)).toMatchObject({ usage: { steps: 1, tokens: 7, modelCalls: 1 } });
    } finally {
      await db.close();
    }
  });
});
