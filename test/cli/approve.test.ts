// Approvals through the CLI entry point: every command opens the SQLite file afresh, as separate processes would.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliOnDb } from "../helpers/cli.js";

const fixtureConfig = fileURLToPath(new URL("../fixtures/two-approvals/langgraph.json", import.meta.url));
let db = "";

const { cli, json } = cliOnDb<RunJson>(() => db);

interface RunJson {
  run_id: string;
  status: string;
  pending: { action_id: string; tool: string; args: Record<string, unknown>; args_hash: string }[];
  result: unknown;
}

async function startRollback(): Promise<RunJson> {
  const { code, view } = await json("run", "ops_rollback", "--message", "Why did the payments deploy fail? Roll back if needed.", "--user", "alice");
  expect(code).toBe(0);
  expect(view.status).toBe("WAITING_APPROVAL");
  expect(view.pending).toHaveLength(1);
  return view;
}

async function worldCalls(): Promise<Record<string, number>> {
  const { out } = await cli("world", "--json");
  return (JSON.parse(out) as { calls: Record<string, number> }).calls;
}

beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-approve-")), "runs.db");
});

describe("agentrt approve", () => {
  it("prints the run JSON contract with the pending action bound to its hash", async () => {
    const view = await startRollback();
    expect(Object.keys(view)).toEqual(expect.arrayContaining(["run_id", "thread_id", "graph", "status", "pending", "result"]));
    expect(view.pending[0]).toMatchObject({ tool: "rollback_deployment", args: { service: "payments", target_revision: "rev-184" } });
    expect(view.pending[0]!.args_hash).toMatch(/^[0-9a-f]{64}$/);
    const status = await json("status", view.run_id);
    expect(status.view).toEqual(view);
  });

  it("--queue checks and stores the approval; a worker resumes the run, with one rollback", async () => {
    const view = await startRollback();
    const action = view.pending[0]!;
    const queued = await json("approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--queue");
    expect(queued.code).toBe(0);
    expect(queued.view.status).toBe("QUEUED");
    expect((await worldCalls()).rollback_deployment ?? 0).toBe(0);
    expect((await cli("worker", "--once")).code).toBe(0);
    expect((await json("status", view.run_id)).view.status).toBe("SUCCEEDED");
    expect((await worldCalls()).rollback_deployment).toBe(1);
  });

  it("refuses a flag given twice (two decisions in one command) with exit 2 instead of keeping the last", async () => {
    const view = await startRollback();
    const action = view.pending[0]!;
    for (const extra of [["--action", "act_other"], ["--args-hash", "f".repeat(64)], ["--by", "alice", "--by", "bob"]]) {
      const refused = await cli("approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash, ...extra);
      expect(refused.code).toBe(2);
      expect(refused.errLines).toHaveLength(1);
      expect(refused.err).toMatch(/given more than once/);
    }
    expect((await json("status", view.run_id)).view.status).toBe("WAITING_APPROVAL");
    expect((await worldCalls()).rollback_deployment ?? 0).toBe(0);
  });

  it("refuses a wrong args hash with exit 2 and leaves the run waiting", async () => {
    const view = await startRollback();
    const action = view.pending[0]!;
    const refused = await cli("approve", view.run_id, "--action", action.action_id, "--args-hash", "0".repeat(64));
    expect(refused.code).toBe(2);
    expect(refused.err.split("\n")).toHaveLength(1);
    expect(refused.err).toContain("ARGS_HASH_MISMATCH");
    expect((await json("status", view.run_id)).view).toMatchObject({ status: "WAITING_APPROVAL", pending: view.pending });
    expect((await worldCalls()).rollback_deployment ?? 0).toBe(0);
  });

  it("refuses an unknown action id and a run that is not waiting", async () => {
    const view = await startRollback();
    const unknown = await cli("approve", view.run_id, "--action", "act_nope", "--args-hash", view.pending[0]!.args_hash);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("UNKNOWN_ACTION");
    const missing = await cli("approve", "run_missing", "--action", "a", "--args-hash", "b");
    expect(missing.code).toBe(2);
    expect(missing.err).toContain("UNKNOWN_RUN");
    expect((await json("status", view.run_id)).view.status).toBe("WAITING_APPROVAL");
  });

  it("refuses an approver the policy does not name", async () => {
    const view = await startRollback();
    const action = view.pending[0]!;
    const refused = await cli("approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--by", "mallory");
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("APPROVER_NOT_ALLOWED");
    expect((await json("status", view.run_id)).view.status).toBe("WAITING_APPROVAL");
  });

  it("approves with the right hash: exactly one rollback, then SUCCEEDED; approving again is refused", async () => {
    const view = await startRollback();
    const action = view.pending[0]!;
    const approved = await json("approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash);
    expect(approved.code).toBe(0);
    expect(approved.view.status).toBe("SUCCEEDED");
    expect(String(approved.view.result)).toContain("recovered");
    expect((await worldCalls()).rollback_deployment).toBe(1);
    const again = await cli("approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash);
    expect(again.code).toBe(2);
    expect(again.err).toContain("RUN_NOT_WAITING");
    expect((await worldCalls()).rollback_deployment).toBe(1);
  });

  it("reject goes back to the model, which finishes without rolling back", async () => {
    const view = await startRollback();
    const action = view.pending[0]!;
    const rejected = await json("approve", view.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--reject", "--reason", "not during business hours");
    expect(rejected.view.status).toBe("SUCCEEDED");
    expect(String(rejected.view.result)).toMatch(/rejected/);
    expect((await worldCalls()).rollback_deployment ?? 0).toBe(0);
  });
});

describe("parallel approvals", () => {
  const previous = process.env.AGENTRT_CONFIG;
  beforeEach(() => {
    process.env.AGENTRT_CONFIG = fixtureConfig;
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.AGENTRT_CONFIG;
    else process.env.AGENTRT_CONFIG = previous;
  });

  it("gives two pending actions with their own ids, each decided on its own", async () => {
    const { view } = await json("run", "two_rollbacks", "--message", "roll back both", "--user", "alice");
    expect(view.status).toBe("WAITING_APPROVAL");
    expect(view.pending.map((p) => p.args.service).sort()).toEqual(["checkout", "payments"]);
    const [first, second] = view.pending as [RunJson["pending"][0], RunJson["pending"][0]];
    expect(first.action_id).not.toBe(second.action_id);

    // The second action's hash does not approve the first.
    const crossed = await cli("approve", view.run_id, "--action", first.action_id, "--args-hash", second.args_hash);
    expect(crossed.code).toBe(2);

    const afterSecond = await json("approve", view.run_id, "--action", second.action_id, "--args-hash", second.args_hash, "--by", "bob", "--role", "sre");
    expect(afterSecond.view.status).toBe("WAITING_APPROVAL");
    expect(afterSecond.view.pending).toEqual([first]);
    expect((await worldCalls()).rollback_deployment).toBe(1);

    const afterFirst = await json("approve", view.run_id, "--action", first.action_id, "--args-hash", first.args_hash, "--reject");
    expect(afterFirst.view.status).toBe("SUCCEEDED");
    expect(String(afterFirst.view.result)).toContain(`${String(second.args.service)}: done`);
    expect(String(afterFirst.view.result)).toContain(`${String(first.args.service)}: rejected`);
    expect((await worldCalls()).rollback_deployment).toBe(1);
  });
});
