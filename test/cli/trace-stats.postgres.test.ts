// `agentrt trace` and `agentrt stats` on a PostgreSQL schema print what they print for the same spans in a SQLite
// file; reading creates nothing, and a URL's password is never printed.
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase, parseDatabaseTarget, type PostgresTarget } from "../../src/db/index.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { openPostgresTraceStore, openTraceStore, type TraceStore } from "../../src/trace/index.js";
import { runCli } from "../helpers/cli.js";
import { agentrtProcess } from "../helpers/cli-process.js";
import { useTestSchema, withClient, TEST_PASSWORD, withPassword, schemaExists, schemaWrittenByNewer } from "../helpers/postgres.js";
import { T0, seedOpsRollback, tempDbPath } from "../trace/fixtures/seed.js";

const schema = useTestSchema(import.meta.url);
// The test server trusts local connections, so a password in the URL is accepted and ignored: only printing it can fail.
const pgUrl = withPassword(schema.url);
let sqlitePath = "";

async function seed(store: TraceStore): Promise<void> {
  await seedOpsRollback(store, "run_01");
  await seedOpsRollback(store, "run_02");
  const weather = await store.recorder("run_03", { graph: "city_weather", startTime: T0 + 5000 });
  weather.recordToolCall({ tool: "get_weather", startTime: T0 + 5000, endTime: T0 + 5100, error: new Error("503") });
  weather.recordToolCall({ tool: "get_weather", startTime: T0 + 5000, endTime: T0 + 5050 });
  await weather.close();
}

/** `trace --json` with each random span id replaced by the order it first appears in (the same on both stores). */
function withOrdinalIds(json: string): unknown {
  const ids = new Map<string, string>();
  const parsed = JSON.parse(json) as { spans: { span_id: string }[] };
  for (const span of parsed.spans) ids.set(span.span_id, `span_${ids.size}`);
  expect(ids.size).toBeGreaterThan(5);
  return JSON.parse(json.replace(/"[0-9a-f]{16}"/g, (id) => JSON.stringify(ids.get(JSON.parse(id) as string) ?? id)));
}

async function tablesIn(name: string): Promise<string[]> {
  return withClient(async (client) => {
    const result = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [name]);
    return result.rows.map((row) => row.table_name);
  });
}

beforeAll(async () => {
  sqlitePath = tempDbPath();
  const file = openDatabase(sqlitePath);
  await seed(openTraceStore(file, { otel: false }));
  file.close();
  const pg = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
  try {
    await seed(await openPostgresTraceStore(pg, { otel: false }));
  } finally {
    await pg.close();
  }
}, 60_000);

describe("agentrt trace and stats on PostgreSQL", () => {
  it("trace prints the same tree and JSON as on SQLite", async () => {
    const [human, json] = await Promise.all([
      agentrtProcess(["trace", "run_01", "--width", "100", "--db", pgUrl]),
      agentrtProcess(["trace", "run_01", "--json", "--db", pgUrl]),
    ]);
    const sqliteHuman = await runCli(["trace", "run_01", "--width", "100", "--db", sqlitePath]);
    const sqliteJson = await runCli(["trace", "run_01", "--json", "--db", sqlitePath]);
    expect(human).toMatchObject({ code: 0, stderr: "" });
    expect(human.stdout).toContain("run run_01  graph ops_rollback  status SUCCEEDED");
    expect(human.stdout).toBe(`${sqliteHuman.out}\n`);
    expect(json).toMatchObject({ code: 0, stderr: "" });
    expect(withOrdinalIds(json.stdout)).toEqual(withOrdinalIds(sqliteJson.out));
  }, 120_000);

  it("stats prints the same tables and JSON as on SQLite, with and without --graph", async () => {
    const [human, json, graph] = await Promise.all([
      agentrtProcess(["stats", "--db", pgUrl]),
      agentrtProcess(["stats", "--json", "--db", pgUrl]),
      agentrtProcess(["stats", "--graph", "city_weather", "--runs", "1", "--json"], { env: { AGENTRT_DATABASE_URL: pgUrl } }),
    ]);
    expect(human).toMatchObject({ code: 0, stderr: "" });
    expect(human.stdout.split("\n")[0]).toBe("graph (all)  runs 3  model calls 4  5000→600 tok  cost $0.001110  retries 2");
    expect(human.stdout).toBe(`${(await runCli(["stats", "--db", sqlitePath])).out}\n`);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse((await runCli(["stats", "--json", "--db", sqlitePath])).out));
    expect(graph).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(graph.stdout)).toEqual(JSON.parse((await runCli(["stats", "--graph", "city_weather", "--runs", "1", "--json", "--db", sqlitePath])).out));
  }, 120_000);

  it("an unknown run is UNKNOWN_RUN (exit 2), naming the database without its password", async () => {
    const { code, err, errLines } = await runCli(["trace", "run_nope", "--db", pgUrl]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(err).toContain(`no trace for run "run_nope" in ${pgUrl.replace(TEST_PASSWORD, "***")} [UNKNOWN_RUN]`);
    expect(err).not.toContain(TEST_PASSWORD);
  });

  it("an empty schema reads like a fresh SQLite file and keeps no table", async () => {
    const empty = schema.fresh("e");
    await withClient((client) => client.query(`CREATE SCHEMA ${empty.name}`));
    const fresh = tempDbPath();
    openDatabase(fresh).close();

    const trace = await runCli(["trace", "run_01", "--db", empty.url]);
    expect(trace.code).toBe(2);
    expect(trace.err).toMatch(/UNKNOWN_RUN/);
    for (const args of [["stats"], ["stats", "--json"], ["stats", "--graph", "g", "--json"]]) {
      const onPostgres = await runCli([...args, "--db", empty.url]);
      expect(onPostgres.code).toBe(0);
      expect(onPostgres.out).toBe((await runCli([...args, "--db", fresh])).out);
    }
    expect((await runCli(["stats", "--db", empty.url])).out).toContain("no traced runs");
    expect(await tablesIn(empty.name)).toEqual([]);
  });

  it("a schema that does not exist is refused (exit 2) like a missing file, and not created", async () => {
    const missing = schema.fresh("x");
    for (const args of [["trace", "run_01"], ["stats"]]) {
      const { code, err, errLines } = await runCli([...args, "--db", withPassword(missing.url)]);
      expect(code).toBe(2);
      expect(errLines).toHaveLength(1);
      expect(err).toContain(`no schema "${missing.name}"`);
      expect(err).toMatch(/\[DB_OPEN_FAILED\]$/);
      expect(err).not.toContain(TEST_PASSWORD);
    }
    expect(await schemaExists(missing.name)).toBe(false);
  });

  it("spans newer than this agentrt knows are DB_SCHEMA_TOO_NEW (exit 2), read or not", async () => {
    const newer = schema.fresh("n");
    await schemaWrittenByNewer(newer.name, "trace");
    for (const args of [["trace", "run_01"], ["stats"]]) {
      const { code, err } = await runCli([...args, "--db", newer.url]);
      expect(code).toBe(2);
      expect(err).toMatch(/module trace is at schema version 99, newer than this agentrt knows \(1\) \[DB_SCHEMA_TOO_NEW\]$/);
    }
  });
});
