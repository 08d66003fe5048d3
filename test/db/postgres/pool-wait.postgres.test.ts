// A wait for a pooled connection is backpressure, not an outage: it lasts past the connect timeout without becoming
// DB_UNREACHABLE, while a server that cannot be reached still is (postgres-database.test.ts).
import { afterEach, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../../src/db/database-target.js";
import { PostgresDatabase } from "../../../src/db/postgres/index.js";
import { useTestSchema } from "../../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const opened: PostgresDatabase[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

const CONNECT_TIMEOUT_MS = 200;

describe("PostgresDatabase pool waits", () => {
  it("waits for a lent-out connection past the connect timeout, in query and transaction, and says it is saturated meanwhile", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(`${schema.url}&pool_max=1`, {}) as PostgresTarget, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
    opened.push(db);
    await db.ready();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const holder = db.transaction(async (client) => {
      await client.query("SELECT 1");
      await released;
    });
    const query = db.query<{ one: number }>("SELECT 1 AS one");
    const transaction = db.transaction(async (client) => (await client.query<{ two: number }>("SELECT 2 AS two")).rows[0]?.two);
    // Several of the pool's waits (each CONNECT_TIMEOUT_MS) pass with the one connection lent out.
    await new Promise((resolve) => setTimeout(resolve, CONNECT_TIMEOUT_MS * 4));
    expect(db.saturated).toBe(true);
    release();
    await holder;
    expect((await query).rows[0]?.one).toBe(1);
    expect(await transaction).toBe(2);
    expect(db.saturated).toBe(false);
  });

  it("takes its pool size from the URL's pool_max, and refuses one that is not a whole number", () => {
    expect((parseDatabaseTarget(`${schema.url}&pool_max=3`, {}) as PostgresTarget).maxConnections).toBe(3);
    expect((parseDatabaseTarget(`${schema.url}&pool_max=3`, {}) as PostgresTarget).connectionString).not.toContain("pool_max");
    expect(() => parseDatabaseTarget(`${schema.url}&pool_max=0`, {})).toThrow(expect.objectContaining({ code: "DB_URL_INVALID" }));
  });
});
