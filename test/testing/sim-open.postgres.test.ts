// openWorld and callSim on PostgreSQL: AGENTRT_DB or AGENTRT_DATABASE_URL holding a postgres:// URL names the
// world a tool call uses when agentrt hands it no database, so the world follows the runtime's database.
import { afterEach, describe, expect, it } from "vitest";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { callSim, type SimToolContext } from "../../src/testing/sim-call.js";
import { closeWorlds, openWorld } from "../../src/testing/sim-open.js";
import { SimWorld } from "../../src/testing/sim-world.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const bell = { name: "bell", seed: { rings: 0 } };

const ring = (key: string, db?: PostgresDatabase) => {
  const opIds: string[] = [];
  const ctx = { db, idempotencyKey: key, signal: new AbortController().signal, setExternalOperationId: (id: string) => opIds.push(id) };
  return callSim(ctx as SimToolContext, { system: bell, tool: "ring", sideEffect: true }, ({ state, operationId }) => {
    state.set("rings", (state.get<number>("rings") ?? 0) + 1);
    return operationId;
  }).then(() => opIds);
};

async function withEnv<T>(name: "AGENTRT_DB" | "AGENTRT_DATABASE_URL", value: string, work: () => Promise<T>): Promise<T> {
  const previous = process.env[name];
  process.env[name] = value;
  try {
    return await work();
  } finally {
    if (previous === undefined) delete process.env[name];
    else process.env[name] = previous;
  }
}

describe("openWorld on PostgreSQL", () => {
  afterEach(async () => {
    await closeWorlds();
  });

  it("opens the schema AGENTRT_DATABASE_URL or AGENTRT_DB names, once per URL, when no database is handed in", async () => {
    const url = schema.fresh("env").url;
    expect(await withEnv("AGENTRT_DATABASE_URL", url, () => ring("studio:1"))).toEqual(["op_bell_1"]);
    expect(await withEnv("AGENTRT_DB", url, () => ring("studio:1"))).toEqual(["op_bell_1"]);
    expect(openWorld({ env: { AGENTRT_DATABASE_URL: url } })).toBe(openWorld({ path: url }));
    expect(openWorld({ path: url }).db).toBeInstanceOf(PostgresDatabase);

    const reader = new PostgresDatabase(parseDatabaseTarget(url, {}) as PostgresTarget);
    try {
      expect(await SimWorld.open(reader).snapshot()).toEqual({ calls: { ring: 1 }, failures: {}, systems: { bell: { rings: 1 } } });
    } finally {
      await reader.close();
    }
  });

  it("uses a PostgreSQL database handed in, and closeWorlds leaves it open", async () => {
    const db = new PostgresDatabase(parseDatabaseTarget(schema.fresh("db").url, {}) as PostgresTarget);
    try {
      expect(await ring("run:call:1", db)).toEqual(["op_bell_1"]);
      expect(await ring("run:call:1", db)).toEqual(["op_bell_1"]);
      expect(openWorld({ db })).toBe(openWorld({ db }));
      await closeWorlds();
      expect((await openWorld({ db }).snapshot()).calls).toEqual({ ring: 1 });
    } finally {
      await db.close();
    }
  });
});
