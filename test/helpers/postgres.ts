// Each test file gets its own PostgreSQL schema on the machine's server, dropped afterwards. A server that cannot
// be reached fails the file (never skips it): CI starts PostgreSQL in .ci/run.
import { randomBytes } from "node:crypto";
import { basename } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";

/** The server the tests use: AGENTRT_TEST_PG_URL, else the machine's own (trust auth, database `test`). */
export const TEST_PG_URL = process.env.AGENTRT_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A schema of the test server, unique to this test file and run. */
export interface TestSchema {
  /** The schema's name. */
  readonly name: string;
  /** A `postgres://…?schema=<name>` URL for `--db` / `Runtime.open`. */
  readonly url: string;
  /** A further fresh schema (dropped with this one) for a test that needs an empty one. */
  fresh(label?: string): { name: string; url: string };
}

/** Registers beforeAll/afterAll hooks giving this file its own schema(s); call at the top level of a test file. */
export function useTestSchema(file: string): TestSchema {
  const stem = basename(file).replace(/\..*$/, "").replace(/[^a-z0-9]+/gi, "_").toLowerCase().slice(0, 30);
  const made: string[] = [];
  const make = (label: string) => {
    const name = `t_${stem}_${label}_${randomBytes(4).toString("hex")}`.slice(0, 63);
    made.push(name);
    return { name, url: urlFor(name) };
  };
  const main = make("m");
  beforeAll(async () => {
    await withClient(async (client) => {
      await client.query(`CREATE SCHEMA ${main.name}`);
    });
  });
  afterAll(async () => {
    await withClient(async (client) => {
      for (const name of made) await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    });
  });
  return { ...main, fresh: (label = "f") => make(label) };
}

/** Runs `work` on one connection to the test server, failing with a clear reason when it is down. */
export async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL test server ${TEST_PG_URL} unreachable (${String(error)}); start it (see .ci/run)`);
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function urlFor(schema: string): string {
  const url = new URL(TEST_PG_URL);
  url.searchParams.set("schema", schema);
  return url.toString();
}

/** The password the CLI tests put in URLs to show it is never printed (the trusting test server ignores it). */
export const TEST_PASSWORD = "s3cret-pw";

/** `url` with {@link TEST_PASSWORD} as its password. */
export function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = TEST_PASSWORD;
  return parsed.toString();
}

/** True when the schema exists on the test server (a reader must not have created it). */
export async function schemaExists(name: string): Promise<boolean> {
  const result = await withClient((client) => client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [name]));
  return result.rows.length > 0;
}

/** Creates schema `name` recording `module` at `version`, as a newer agentrt would have left it. */
export async function schemaWrittenByNewer(name: string, module: string, version = 99): Promise<void> {
  await withClient(async (client) => {
    await client.query(`CREATE SCHEMA ${name}`);
    await client.query(`CREATE TABLE ${name}.agentrt_schema (module TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at BIGINT NOT NULL)`);
    await client.query(`INSERT INTO ${name}.agentrt_schema VALUES ($1, $2, 0)`, [module, version]);
  });
}

/**
 * Runs `work` and returns the SQL text of every query any pg client sent meanwhile, with its result: one entry per
 * round trip to the server (a multi-statement send counts once).
 */
export async function statementsSent<T>(work: () => Promise<T>): Promise<{ sent: string[]; result: T }> {
  const original = pg.Client.prototype.query;
  const sent: string[] = [];
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    const query = args[0] as string | { text: string };
    sent.push(typeof query === "string" ? query : query.text);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    return { sent, result: await work() };
  } finally {
    pg.Client.prototype.query = original;
  }
}

/** Registers an afterEach closing every pool the returned function opened; call at the top level of a test file. */
export function useDatabases(): (url: string) => PostgresDatabase {
  const opened: PostgresDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });
  return (url) => {
    const db = new PostgresDatabase(parseDatabaseTarget(url) as PostgresTarget);
    opened.push(db);
    return db;
  };
}
