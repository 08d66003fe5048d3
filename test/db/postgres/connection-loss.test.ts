// A PostgresDatabase whose connections die under it (pg_terminate_backend, a server that stops answering): no crash,
// no hang, the statement under way fails with DB_CONNECTION_LOST, and the next one gets a new connection.
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../../src/db/database-target.js";
import { PostgresDatabase, type PostgresDatabaseOptions } from "../../../src/db/postgres/index.js";
import { useTestSchema, withClient } from "../../helpers/postgres.js";
import { postgresProxy } from "../../helpers/tcp-proxy.js";

const schema = useTestSchema(import.meta.url);
const opened: PostgresDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

/** A database on the test schema whose connections carry an application_name of their own, so only they are terminated. */
function open(options: PostgresDatabaseOptions = {}, url = schema.url): { db: PostgresDatabase; app: string } {
  const app = `agentrt_t_${randomBytes(4).toString("hex")}`;
  // Trust auth ignores the password: it is there to show it never reaches a message.
  const withSecret = url.replace("postgres://postgres@", "postgres://postgres:topsecret@");
  const db = new PostgresDatabase(parseDatabaseTarget(`${withSecret}&application_name=${app}`, {}) as PostgresTarget, options);
  opened.push(db);
  return { db, app };
}

/** Terminates every backend of `app` matching `where`; returns how many. */
async function terminate(app: string, where = "true"): Promise<number> {
  const result = await withClient((client) =>
    client.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND ${where}`, [app]));
  return result.rowCount ?? 0;
}

/** Waits until a statement of `app` is under way on the server (so a terminate meets it mid-flight). */
async function untilActive(app: string, like: string): Promise<void> {
  for (;;) {
    const found = await withClient((client) =>
      client.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE $2", [app, like]));
    if ((found.rowCount ?? 0) > 0) return;
    await sleep(10);
  }
}

const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Error);

function expectLost(failure: Error | undefined): void {
  expect(failure).toMatchObject({ code: "DB_CONNECTION_LOST", message: expect.stringMatching(/^postgres@127\.0\.0\.1:\d+\/test: connection to PostgreSQL lost \(/) });
  expect(failure?.message).not.toContain("topsecret");
  expect(failure?.message.split("\n")).toHaveLength(1);
}

describe("PostgresDatabase when its connections die", () => {
  it("survives its idle connections being terminated, and the next statement connects anew", async () => {
    const { db, app } = open();
    await db.ready();
    // Two statements at once leave two idle connections in the pool.
    await Promise.all([db.query("SELECT pg_sleep(0.05)"), db.query("SELECT pg_sleep(0.05)")]);
    const before = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(await terminate(app)).toBeGreaterThanOrEqual(2);
    // The pool drops each dead idle connection as it hears of it (an unhandled 'error' here would end the process).
    while (db.pool.totalCount > 0) await sleep(5);
    const after = await db.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(after.rows[0]?.pid).not.toBe(before.rows[0]?.pid);
  });

  it("fails a statement under way with DB_CONNECTION_LOST at once, and the next one works", async () => {
    const { db, app } = open();
    await db.ready();
    // Far longer than the test's own timeout: only the terminate can end it in time.
    const long = failureOf(db.query("SELECT pg_sleep(25)"));
    await untilActive(app, "SELECT pg_sleep(25)%");
    expect(await terminate(app)).toBe(1);
    expectLost(await long);
    expect((await db.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  }, 15_000);

  it("rolls back a transaction whose statement under way is cut off, and reports DB_CONNECTION_LOST", async () => {
    const { db, app } = open();
    await db.query("CREATE TABLE cut (id TEXT PRIMARY KEY)");
    const tx = failureOf(db.transaction(async (client) => {
      await client.query("INSERT INTO cut (id) VALUES ('mid-statement')");
      await client.query("SELECT pg_sleep(25)");
    }));
    await untilActive(app, "SELECT pg_sleep(25)%");
    await terminate(app);
    expectLost(await tx);
    expect((await db.query("SELECT id FROM cut")).rowCount).toBe(0);
    await db.transaction((client) => client.query("INSERT INTO cut (id) VALUES ('after')"));
    expect((await db.query("SELECT id FROM cut")).rows).toEqual([{ id: "after" }]);
  }, 15_000);

  it("rolls back a transaction whose connection dies between its statements, without crashing", async () => {
    const { db, app } = open();
    await db.query("CREATE TABLE gap (id TEXT PRIMARY KEY)");
    let cut: () => void = () => undefined;
    const wasCut = new Promise<void>((resolve) => (cut = resolve));
    const tx = failureOf(db.transaction(async (client) => {
      await client.query("INSERT INTO gap (id) VALUES ('before-the-gap')");
      // Idle in transaction: no statement is under way when the connection dies, so only the client's 'error' hears it.
      await wasCut;
      await client.query("INSERT INTO gap (id) VALUES ('after-the-gap')");
    }));
    await untilIdleInTransaction(app);
    await terminate(app);
    await sleep(50);
    cut();
    expectLost(await tx);
    expect((await db.query("SELECT id FROM gap")).rowCount).toBe(0);
  }, 15_000);

  it("gives up on a server that stops answering instead of hanging, then reconnects once it answers again", async () => {
    const proxy = await postgresProxy();
    try {
      const { db } = open({ queryTimeoutMs: 300, connectTimeoutMs: 300 }, proxy.url(schema.url));
      // Two connections in the pool, both idle when the server stops answering.
      await Promise.all([db.query("SELECT pg_sleep(0.05)"), db.query("SELECT pg_sleep(0.05)")]);
      proxy.freeze();
      expectLost(await failureOf(db.query("SELECT 2 AS two")));
      expectLost(await failureOf(db.transaction((client) => client.query("SELECT 3"))));
      // Both are dropped; a new connection cannot be made either.
      expect(await failureOf(db.query("SELECT 4"))).toMatchObject({ code: "DB_UNREACHABLE" });
      proxy.thaw();
      expect((await db.query("SELECT 5 AS five")).rows).toEqual([{ five: 5 }]);
    } finally {
      await proxy.close();
    }
  }, 15_000);

  it("sets a server-side statement timeout below the client's, and lets the URL's options override it", async () => {
    const { db } = open();
    expect((await db.query("SHOW statement_timeout")).rows[0]).toEqual({ statement_timeout: "30s" });
    expect((await db.query("SHOW idle_in_transaction_session_timeout")).rows[0]).toEqual({ idle_in_transaction_session_timeout: "1min" });
    const { db: relaxed } = open({}, `${schema.url}&options=${encodeURIComponent("-c statement_timeout=0")}`);
    expect((await relaxed.query("SHOW statement_timeout")).rows[0]).toEqual({ statement_timeout: "0" });
  });
});

async function untilIdleInTransaction(app: string): Promise<void> {
  for (;;) {
    const found = await withClient((client) =>
      client.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'", [app]));
    if ((found.rowCount ?? 0) > 0) return;
    await sleep(10);
  }
}
