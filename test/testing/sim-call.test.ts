import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { callSim, type SimToolContext } from "../../src/testing/sim-call.js";
import { closeWorlds, openWorld } from "../../src/testing/sim-open.js";

const bell = { name: "bell", seed: { rings: 0 } };

function context(db: SqliteDatabase | undefined, key: string): SimToolContext & { opIds: string[] } {
  const opIds: string[] = [];
  return { db, idempotencyKey: key, signal: new AbortController().signal, setExternalOperationId: (id) => opIds.push(id), opIds };
}

const ring = (ctx: SimToolContext) =>
  callSim(ctx, { system: bell, tool: "ring", sideEffect: true }, ({ state, operationId }) => {
    state.set("rings", (state.get<number>("rings") ?? 0) + 1);
    return { operationId };
  });

describe("callSim and openWorld", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "agentrt-simcall-"));
  });
  afterEach(async () => {
    await closeWorlds();
    rmSync(dir, { recursive: true, force: true });
  });

  it("uses ctx.db and reports the operation id, also on replay", async () => {
    const db = openDatabase(join(dir, "run.db"));
    const ctx = context(db, "run:call:1");
    await ring(ctx);
    await ring(ctx);
    expect(ctx.opIds).toEqual(["op_bell_1", "op_bell_1"]);
    expect((await openWorld({ db }).snapshot()).calls).toEqual({ ring: 1 });
    expect(openWorld({ db })).toBe(openWorld({ db }));
    db.close();
  });

  it("falls back to AGENTRT_DB when agentrt did not inject a database", async () => {
    const file = join(dir, "studio.db");
    const previous = process.env.AGENTRT_DB;
    process.env.AGENTRT_DB = file;
    try {
      await ring(context(undefined, "studio:1"));
      expect(openWorld()).toBe(openWorld({ path: file }));
      expect(await openWorld({ path: file }).snapshot()).toEqual({ calls: { ring: 1 }, failures: {}, systems: { bell: { rings: 1 } } });
    } finally {
      if (previous === undefined) delete process.env.AGENTRT_DB;
      else process.env.AGENTRT_DB = previous;
    }
  });
});
