// `agentrt world --reset`: the simulated systems start over, so ops_rollback finds the failed deploy again and pauses.
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { cliOnDb, runCli } from "../helpers/cli.js";

let db = "";
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-world-reset-")), "runs.db");
});

interface RunJson {
  run_id: string;
  status: string;
  pending: { action_id: string; args_hash: string }[];
}
const { cli, json } = cliOnDb<RunJson>(() => db);
const rollback = () => json("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--user", "alice");

describe("agentrt world --reset", () => {
  it("after one walkthrough ops_rollback no longer pauses; after --reset it pauses again", async () => {
    const first = (await rollback()).view;
    const action = first.pending[0]!;
    expect((await json("approve", first.run_id, "--action", action.action_id, "--args-hash", action.args_hash)).view.status).toBe("SUCCEEDED");
    expect((await rollback()).view.status).toBe("SUCCEEDED");

    const reset = await cli("world", "--reset");
    expect(reset.code).toBe(0);
    expect(reset.out).toMatch(/reset/);
    const world = JSON.parse((await cli("world", "--json")).out) as { calls: Record<string, number>; systems: Record<string, unknown> };
    expect(world.calls).toEqual({});

    const again = (await rollback()).view;
    expect(again.status).toBe("WAITING_APPROVAL");
    // The runs themselves are kept.
    expect((await json("status", first.run_id)).view.status).toBe("SUCCEEDED");
  });

  it("--reset --json prints the world as world --json does, now empty", async () => {
    await rollback();
    const { code, out, err } = await cli("world", "--reset", "--json");
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(JSON.parse(out)).toEqual({ calls: {}, failures: {}, systems: {} });
  });

  it("refuses a missing --db with exit 2 and creates nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-world-reset-missing-"));
    const { code, errLines } = await runCli(["world", "--reset", "--db", join(dir, "nope.db")]);
    expect(code).toBe(2);
    expect(errLines).toHaveLength(1);
    expect(existsSync(join(dir, "nope.db"))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
