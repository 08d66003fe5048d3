// `agentrt world` on a PostgreSQL schema shows what the same calls show in a SQLite file; `--reset` empties it,
// reading creates nothing, and a URL's password is never printed.
import { beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { closeWorlds, openWorld } from "../../src/testing/sim-open.js";
import type { SimSystem } from "../../src/testing/sim-world.js";
import { runCli } from "../helpers/cli.js";
import { agentrtProcess } from "../helpers/cli-process.js";
import { useTestSchema, withClient, TEST_PASSWORD, withPassword, schemaExists, schemaWrittenByNewer } from "../helpers/postgres.js";
import { tempDbPath } from "../trace/fixtures/seed.js";

const schema = useTestSchema(import.meta.url);
const pgUrl = withPassword(schema.url);
let sqlitePath = "";

const deploys: SimSystem = { name: "deploys", seed: { payments: { service: "payments", currentRevision: "r2", history: ["r1", "r2"] } } };
const tickets: SimSystem = { name: "tickets", seed: {} };

/** The same calls on any database: a rollback (twice with one key), a read, a ticket, and a failed call. */
async function fill(path: string): Promise<void> {
  const world = openWorld({ path, env: { AGENTRT_SIM_FAULTS: "open_ticket:1" } });
  const rollback = () => world.perform({ system: deploys, tool: "rollback_deployment", sideEffect: true, idempotencyKey: "run_1:c1:1" }, ({ state, operationId }) => {
    state.set("payments", { service: "payments", currentRevision: "r1", history: ["r1", "r2", "r1"], operation: operationId });
    return { ok: true };
  });
  await rollback();
  await rollback();
  await world.perform({ system: deploys, tool: "get_deployment", sideEffect: false }, ({ state }) => state.get("payments"));
  await expect(world.perform({ system: tickets, tool: "open_ticket", sideEffect: true, idempotencyKey: "t1" }, () => null)).rejects.toThrow();
  await world.perform({ system: tickets, tool: "open_ticket", sideEffect: true, idempotencyKey: "t1" }, ({ state, operationId }) => {
    state.set("T-1", { title: "payments deploy failed", operation: operationId });
    return operationId;
  });
}

async function tablesIn(name: string): Promise<string[]> {
  return withClient(async (client) => {
    const result = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [name]);
    return result.rows.map((row) => row.table_name);
  });
}

beforeAll(async () => {
  sqlitePath = tempDbPath();
  try {
    await fill(sqlitePath);
    await fill(schema.url);
  } finally {
    await closeWorlds();
  }
}, 60_000);

describe("agentrt world on PostgreSQL", () => {
  it("shows the same calls and state as on SQLite, as tables and as JSON", async () => {
    const [human, json] = await Promise.all([agentrtProcess(["world", "--db", pgUrl]), agentrtProcess(["world", "--json", "--db", pgUrl])]);
    expect(human).toMatchObject({ code: 0, stderr: "" });
    expect(human.stdout).toMatch(/rollback_deployment +1 +0/);
    expect(human.stdout).toMatch(/open_ticket +1 +1/);
    expect(human.stdout).toBe(`${(await runCli(["world", "--db", sqlitePath])).out}\n`);
    expect(json).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse((await runCli(["world", "--json", "--db", sqlitePath])).out));
    expect(JSON.parse(json.stdout)).toMatchObject({ calls: { rollback_deployment: 1, get_deployment: 1, open_ticket: 1 }, failures: { open_ticket: 1 } });
  }, 120_000);

  it("--reset (here on AGENTRT_DATABASE_URL) empties it, saying so without the password", async () => {
    const other = schema.fresh("r");
    try {
      await fill(other.url);
    } finally {
      await closeWorlds();
    }
    const reset = await agentrtProcess(["world", "--reset"], { env: { AGENTRT_DATABASE_URL: withPassword(other.url) } });
    expect(reset).toMatchObject({ code: 0, stderr: "" });
    expect(reset.stdout).toBe(`the simulated world in ${withPassword(other.url).replace(TEST_PASSWORD, "***")} is reset: every system starts from its seed at its next call (runs and traces are kept)\n`);
    const after = await runCli(["world", "--json", "--db", other.url]);
    expect(JSON.parse(after.out)).toEqual({ calls: {}, failures: {}, systems: {} });
    const resetJson = await runCli(["world", "--reset", "--json", "--db", other.url]);
    expect(JSON.parse(resetJson.out)).toEqual({ calls: {}, failures: {}, systems: {} });
  }, 120_000);

  it("an empty schema is an empty world and keeps no table; a missing one is refused and not created", async () => {
    const empty = schema.fresh("e");
    await withClient((client) => client.query(`CREATE SCHEMA ${empty.name}`));
    // A file no simulated system ran in: no sim tables.
    const fresh = tempDbPath();
    openDatabase(fresh).close();
    for (const args of [["world"], ["world", "--json"]]) {
      const result = await runCli([...args, "--db", empty.url]);
      expect(result.code).toBe(0);
      expect(result.out).toContain(args.length === 1 ? "none yet" : '"calls":{}');
      expect(result.out).toBe((await runCli([...args, "--db", fresh])).out);
    }
    expect(await tablesIn(empty.name)).toEqual([]);

    const missing = schema.fresh("x");
    for (const args of [["world"], ["world", "--reset"]]) {
      const { code, err, errLines } = await runCli([...args, "--db", withPassword(missing.url)]);
      expect(code).toBe(2);
      expect(errLines).toHaveLength(1);
      expect(err).toMatch(new RegExp(`no schema "${missing.name}".*\\[DB_OPEN_FAILED\\]$`));
      expect(err).not.toContain(TEST_PASSWORD);
    }
    expect(await schemaExists(missing.name)).toBe(false);
  });

  it("sim tables newer than this agentrt knows are DB_SCHEMA_TOO_NEW (exit 2)", async () => {
    const newer = schema.fresh("n");
    await schemaWrittenByNewer(newer.name, "sim");
    const { code, err } = await runCli(["world", "--db", newer.url]);
    expect(code).toBe(2);
    expect(err).toMatch(/module sim is at schema version 99, newer than this agentrt knows \(2\) \[DB_SCHEMA_TOO_NEW\]$/);
  });
});
