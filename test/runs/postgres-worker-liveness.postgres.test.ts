// Worker liveness on PostgreSQL (issue 36, item 3): a registered worker whose session ended has its leased runs
// recovered at once, as an expired lease would be; a live one, and an owner that never registered, keep theirs.
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { PostgresRunStore, PostgresWorkerLiveness } from "../../src/runs/index.js";
import { lockClass } from "../../src/runs/postgres-worker-liveness.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const CAPS = { maxRunning: Infinity, maxRunningPerUser: Infinity, userLimits: {} };
const LEASE_MS = 60_000;
const closing: PostgresDatabase[] = [];
afterAll(async () => {
  for (const db of closing) await db.close();
});

async function open() {
  const db = new PostgresDatabase(parseDatabaseTarget(schema.fresh().url) as PostgresTarget);
  closing.push(db);
  const store = PostgresRunStore.open(db);
  await store.ready();
  return { db, store, liveness: new PostgresWorkerLiveness(db, store) };
}

/** A worker process as PostgreSQL sees it: its lock and row on a session of its own, ended without a word (a kill). */
async function workerSession(db: PostgresDatabase, workerId: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.pool.options.connectionString, options: db.pool.options.options });
  await client.connect();
  await client.query("SELECT pg_advisory_lock($1, hashtext($2))", [lockClass(db.schema), workerId]);
  await client.query("INSERT INTO run_workers (worker_id, started_at) VALUES ($1, 0)", [workerId]);
  return client;
}

it("recovers the leased runs of a registered worker whose session ended, and only those", async () => {
  const { db, store, liveness } = await open();
  expect(await liveness.recoverDead()).toBe(0);
  const release = await liveness.hold("alive");
  expect(release).toBeDefined();
  // One id, one live session: a second holder of it is refused (its runs then wait for their leases).
  expect(await liveness.hold("alive")).toBeUndefined();
  const dying = await workerSession(db, "dead");
  const runs: Record<string, string> = {};
  for (const owner of ["alive", "dead", "rt_unregistered"]) {
    await store.create({ graphId: "g", runId: `run_${owner}` });
    runs[owner] = (await store.claimNext({ workerId: owner, leaseMs: LEASE_MS, caps: CAPS }))!.runId;
  }
  expect(await liveness.recoverDead()).toBe(0);
  await dying.end();

  expect(await liveness.recoverDead()).toBe(1);
  const dead = await store.get(runs.dead!);
  expect(dead).toMatchObject({ status: "RETRYING", errorCode: "LEASE_LOST", lease: null });
  expect((await store.events(dead.runId)).at(-1)).toMatchObject({ from: "RUNNING", to: "RETRYING", fencingToken: 1 });
  expect(await store.get(runs.alive!)).toMatchObject({ status: "RUNNING", lease: { owner: "alive" } });
  expect(await store.get(runs.rt_unregistered!)).toMatchObject({ status: "RUNNING", lease: { owner: "rt_unregistered" } });
  // The next claim takes it under the next token, as after a lease expiry.
  expect(await store.claimNext({ workerId: "alive", leaseMs: LEASE_MS, caps: CAPS })).toMatchObject({ runId: dead.runId, fencingToken: 2 });
  expect(await liveness.recoverDead()).toBe(0);

  // A stopped worker's row goes with it; the id may be held again.
  await release!();
  expect((await db.query("SELECT worker_id FROM run_workers")).rows).toEqual([]);
  const again = await liveness.hold("alive");
  expect(again).toBeDefined();
  await again!();
});
