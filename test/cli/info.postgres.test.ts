// `agentrt info` on PostgreSQL: the server, the schema and each module's schema version, never the password,
// and it creates nothing (a schema not there yet is reported as such, like a SQLite file not created yet).
import { describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/index.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { openPostgresTraceStore } from "../../src/trace/index.js";
import { closeWorlds, openWorld } from "../../src/testing/sim-open.js";
import { runCli } from "../helpers/cli.js";
import { agentrtProcess } from "../helpers/cli-process.js";
import { useTestSchema, withClient, TEST_PASSWORD, withPassword, schemaExists } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const server = (parseDatabaseTarget(schema.url) as PostgresTarget).server;

describe("agentrt info on PostgreSQL", () => {
  it("reports a schema not created yet, and does not create it", async () => {
    const missing = schema.fresh("x");
    const url = withPassword(missing.url);
    const { code, out, err } = await runCli(["info", "--json", "--db", url]);
    expect([code, err]).toEqual([0, ""]);
    expect(JSON.parse(out)).toMatchObject({ db: url.replace(TEST_PASSWORD, "***"), backend: "postgres", server, schema: missing.name, exists: false, modules: {} });
    const human = await runCli(["info", "--db", url]);
    expect(human.outLines.slice(1)).toEqual([
      `database ${url.replace(TEST_PASSWORD, "***")} (not created yet)`,
      `  PostgreSQL server ${server}, schema ${missing.name}`,
    ]);
    expect(await schemaExists(missing.name)).toBe(false);
  });

  it("lists each module's schema version once its tables exist, without the password", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.url) as PostgresTarget);
    try {
      await openPostgresTraceStore(db, { otel: false });
      await openWorld({ db }).snapshot();
    } finally {
      await db.close();
      await closeWorlds();
    }
    const url = withPassword(schema.url);
    const [human, json] = await Promise.all([agentrtProcess(["info", "--db", url]), agentrtProcess(["info", "--json"], { env: { AGENTRT_DATABASE_URL: url } })]);
    expect(human).toMatchObject({ code: 0, stderr: "" });
    expect(human.stdout.split("\n").slice(1)).toEqual([
      `database ${url.replace(TEST_PASSWORD, "***")}`,
      `  PostgreSQL server ${server}, schema ${schema.name}`,
      "  sim: schema v2",
      "  trace: schema v1",
      "",
    ]);
    expect(json).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(json.stdout)).toMatchObject({ backend: "postgres", server, schema: schema.name, exists: true, modules: { sim: 2, trace: 1 } });
    expect(human.stdout + json.stdout).not.toContain(TEST_PASSWORD);
  }, 120_000);

  it("an existing schema with no agentrt table exists and has no modules", async () => {
    const empty = schema.fresh("e");
    await withClient((client) => client.query(`CREATE SCHEMA ${empty.name}`));
    const { code, out } = await runCli(["info", "--json", "--db", empty.url]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ exists: true, modules: {} });
  });
});
