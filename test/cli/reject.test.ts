// `agentrt reject` as the README names it: the same decision as `approve --reject`, same exit codes and JSON.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { cliOnDb } from "../helpers/cli.js";

let db = "";
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-reject-")), "runs.db");
});

interface RunJson {
  run_id: string;
  status: string;
  pending: { action_id: string; args_hash: string }[];
  result: unknown;
  usage: unknown;
}
const { cli, json } = cliOnDb<RunJson>(() => db);

async function waitingRollback(): Promise<RunJson> {
  const { view } = await json("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--user", "alice");
  expect(view.status).toBe("WAITING_APPROVAL");
  return view;
}

async function rollbacks(): Promise<number> {
  return (JSON.parse((await cli("world", "--json")).out) as { calls: Record<string, number> }).calls.rollback_deployment ?? 0;
}

describe("agentrt reject", () => {
  it("rejects like approve --reject: the model goes on without the rollback, exit 0, the same JSON fields", async () => {
    const view = await waitingRollback();
    const action = view.pending[0]!;
    const rejected = await json("reject", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--reason", "not now");
    expect(rejected.code).toBe(0);
    expect(rejected.view.status).toBe("SUCCEEDED");
    expect(String(rejected.view.result)).toMatch(/rejected/);
    expect(await rollbacks()).toBe(0);

    const other = await waitingRollback();
    const otherAction = other.pending[0]!;
    const viaFlag = await json("approve", other.run_id, "--action", otherAction.action_id, "--args-hash", otherAction.args_hash, "--reject", "--reason", "not now");
    expect(Object.keys(viaFlag.view).sort()).toEqual(Object.keys(rejected.view).sort());
    expect(viaFlag.view.result).toEqual(rejected.view.result);
  });

  it("refuses a wrong hash or missing flags with exit 2 and leaves the run waiting", async () => {
    const view = await waitingRollback();
    const action = view.pending[0]!;
    const wrong = await cli("reject", view.run_id, "--action", action.action_id, "--args-hash", "0".repeat(64));
    expect(wrong.code).toBe(2);
    expect(wrong.errLines).toHaveLength(1);
    expect(wrong.err).toContain("ARGS_HASH_MISMATCH");
    const missing = await cli("reject", view.run_id);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^agentrt reject: .*--action/);
    expect((await json("status", view.run_id)).view.status).toBe("WAITING_APPROVAL");
  });

  it("a waiting run's human output offers the reject command", async () => {
    const { out } = await cli("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--user", "alice");
    // The prefix is however this process was started (cli-invocation's rule): in-process it is not a checkout's bin.
    expect(out).toMatch(/reject: +(npx agentrt|npm run agentrt --|agentrt) reject run_\w+ --action act_\w+ --args-hash [0-9a-f]{64}/);
  });
});
