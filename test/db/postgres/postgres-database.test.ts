// Connection, schema creation, migrations and the errors of a server agentrt cannot use — against the real server.
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../../src/db/database-target.js";
import { PostgresDatabase, migratePostgres, readPostgresVersion, type PgModuleSchema } from "../../../src/db/postgres/index.js";
import { useTestSchema, withClient } from "../../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const opened: PostgresDatabase[] = [];
const open = (url: string, connectTimeoutMs?: number) => {
  const db = new PostgresDatabase(parseDatabaseTarget(url, {}) as PostgresTarget, { connectTimeoutMs });
  opened.push(db);
  return db;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
});

const NOTES: PgModuleSchema = {
  module: "notes",
  tables: ["notes"],
  migrations: ["CREATE TABLE notes (id TEXT PRIMARY KEY)", "ALTER TABLE notes ADD COLUMN body TEXT NOT NULL DEFAULT ''"],
};

describe("PostgresDatabase", () => {
  it("creates a missing schema and keeps every table in it", async () => {
    const fresh = schema.fresh("created");
    const db = open(fresh.url);
    expect(await migratePostgres(db, NOTES)).toBe(2);
    await db.query("INSERT INTO notes (id, body) VALUES ('a', 'hi')");
    const where = await withClient((client) =>
      client.query("SELECT table_schema FROM information_schema.tables WHERE table_name = 'notes' AND table_schema = $1", [fresh.name]),
    );
    expect(where.rowCount).toBe(1);
  });

  it("passes the URL's options on to the server and keeps the schema's search_path", async () => {
    const fresh = schema.fresh("opts");
    const db = open(`${fresh.url}&options=${encodeURIComponent("-c synchronous_commit=off")}`);
    await migratePostgres(db, NOTES);
    expect((await db.query("SHOW synchronous_commit")).rows[0]).toEqual({ synchronous_commit: "off" });
    expect((await db.query("SELECT current_schema() AS s")).rows[0]).toEqual({ s: fresh.name });
  });

  it("migrates once when many connections open a fresh schema at the same moment", async () => {
    const fresh = schema.fresh("race");
    const versions = await Promise.all(Array.from({ length: 6 }, () => migratePostgres(open(fresh.url), NOTES)));
    expect(versions).toEqual([2, 2, 2, 2, 2, 2]);
    expect(await readPostgresVersion(open(fresh.url), "notes")).toBe(2);
  });

  it("refuses a schema written by a newer agentrt, and a foreign table of the module's name", async () => {
    const db = open(schema.url);
    await migratePostgres(db, NOTES);
    const older: PgModuleSchema = { ...NOTES, migrations: NOTES.migrations.slice(0, 1) };
    await expect(migratePostgres(db, older)).rejects.toMatchObject({ code: "DB_SCHEMA_TOO_NEW", message: expect.stringContaining("module notes is at schema version 2") });

    const foreign = schema.fresh("foreign");
    await withClient((client) => client.query(`CREATE SCHEMA ${foreign.name}; CREATE TABLE ${foreign.name}.notes (x INT)`));
    await expect(migratePostgres(open(foreign.url), NOTES)).rejects.toMatchObject({ code: "DB_CORRUPT" });
  });

  it("leaves no half-migrated schema when a migration fails", async () => {
    const fresh = schema.fresh("half");
    const broken: PgModuleSchema = { ...NOTES, migrations: [...NOTES.migrations, "ALTER TABLE notes ADD COLUMN nope NOT_A_TYPE"] };
    await expect(migratePostgres(open(fresh.url), broken)).rejects.toThrow(/not_a_type/);
    const db = open(fresh.url);
    expect(await readPostgresVersion(db, "notes")).toBe(0);
    expect(await migratePostgres(db, NOTES)).toBe(2);
  });

  it("reports a server that is not listening as DB_UNREACHABLE, naming it without the password", async () => {
    const port = await closedPort();
    const db = open(`postgres://agent:topsecret@127.0.0.1:${port}/test`);
    const failure = await db.ready().then(() => undefined, (error: unknown) => error);
    expect(failure).toMatchObject({ code: "DB_UNREACHABLE", message: expect.stringContaining(`agent@127.0.0.1:${port}/test: cannot connect`) });
    expect(String((failure as Error).message)).not.toContain("topsecret");
    expect((failure as Error).message.split("\n")).toHaveLength(1);
  });

  it("times out a server that accepts but never answers, instead of hanging", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      const db = open(`postgres://127.0.0.1:${port}/test`, 300);
      await expect(db.ready()).rejects.toMatchObject({ code: "DB_UNREACHABLE" });
    } finally {
      silent.close();
    }
  });

  it("reports a missing database and a missing role in one line", async () => {
    await expect(open("postgres://postgres@127.0.0.1:5432/agentrt_no_such_db").ready()).rejects.toMatchObject({
      code: "DB_OPEN_FAILED",
      message: 'postgres@127.0.0.1:5432/agentrt_no_such_db: database "agentrt_no_such_db" does not exist',
    });
    const role = await open("postgres://agentrt_no_such_role@127.0.0.1:5432/test").ready().then(() => undefined, (error: unknown) => error);
    expect(role).toMatchObject({ code: "DB_AUTH_FAILED" });
  });

  it("rolls a failed transaction back and keeps the pool usable", async () => {
    const db = open(schema.url);
    await migratePostgres(db, NOTES);
    await expect(
      db.transaction(async (client) => {
        await client.query("INSERT INTO notes (id) VALUES ('rolled')");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect((await db.query("SELECT id FROM notes WHERE id = 'rolled'")).rowCount).toBe(0);
    await db.transaction((client) => client.query("INSERT INTO notes (id) VALUES ('kept')"));
    expect((await db.query("SELECT id FROM notes WHERE id = 'kept'")).rowCount).toBe(1);
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
