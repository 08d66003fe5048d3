// Change detection on PostgreSQL without a row every commit locks (schema V4): two transactions changing two runs
// commit side by side, and the change stamp still moves for a change committed by a transaction that was already
// running when the stamp's reader last looked.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { PostgresRunStore } from "../../src/runs/index.js";
import { TEST_PG_URL, useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

async function connected(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, options: `-c search_path=${schema.name}` });
  await client.connect();
  return client;
}

describe("run changes on PostgreSQL", () => {
  it("lets two transactions changing two runs commit while neither has ended (no shared row locked at commit)", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    const [a, b] = [await connected(), await connected()];
    try {
      const store = PostgresRunStore.open(db);
      const [one, two] = [await store.create({ graphId: "g" }), await store.create({ graphId: "g", threadId: "t2" })];
      await a.query("BEGIN");
      await a.query("UPDATE runs SET status = 'CANCELED', updated_at = updated_at + 1 WHERE run_id = $1", [one.runId]);
      // What COMMIT does first: deferred triggers fire (V2's took the one counter row's lock here).
      await a.query("SET CONSTRAINTS ALL IMMEDIATE");
      await b.query("SET lock_timeout = '500ms'");
      await b.query("BEGIN");
      await b.query("UPDATE runs SET status = 'CANCELED', updated_at = updated_at + 1 WHERE run_id = $1", [two.runId]);
      await b.query("SET CONSTRAINTS ALL IMMEDIATE");
      await b.query("COMMIT");
      await a.query("COMMIT");
    } finally {
      await Promise.all([a.end(), b.end(), db.close()]);
    }
  });

  it("moves the change stamp for a change whose transaction was running at the last look, and not for a heartbeat", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    const late = await connected();
    try {
      const store = PostgresRunStore.open(db);
      const run = await store.create({ graphId: "g", threadId: "t3" });
      await late.query("BEGIN");
      await late.query("UPDATE runs SET status = 'CANCELED', updated_at = updated_at + 1 WHERE run_id = $1", [run.runId]);
      const before = await store.changeStamp();
      expect(await store.changeStamp()).toBe(before);
      await late.query("COMMIT");
      const after = await store.changeStamp();
      expect(after).not.toBe(before);
      await late.query("UPDATE runs SET lease_expires_at = 5 WHERE run_id = $1", [run.runId]);
      expect(await store.changeStamp()).toBe(after);
    } finally {
      await Promise.all([late.end(), db.close()]);
    }
  });
});
