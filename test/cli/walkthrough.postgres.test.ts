// Issue #17's "Done when" through the real executable on PostgreSQL, every command its own process: `run
// ops_rollback` pauses, `approve` from another process finishes it with exactly one rollback, and `world`, `trace`,
// `runs` and `status` show it; the reject path, a cancel listing the side effect already done, and the same
// walkthrough with AGENTRT_DATABASE_URL instead of --db. Each test has its own schema (its own simulated world).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { agentrtProcess, type ProcessResult } from "../helpers/cli-process.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);
const MESSAGE = "Why did the payments deploy fail? Roll back if needed.";
const TWO_APPROVALS = fileURLToPath(new URL("../fixtures/two-approvals/langgraph.json", import.meta.url));

interface RunJson {
  run_id: string;
  thread_id: string;
  graph: string;
  status: string;
  pending: { action_id: string; tool: string; args: Record<string, unknown>; args_hash: string }[];
  result: unknown;
  side_effects?: { tool: string; status: string; external_operation_id: string | null }[];
}

/** `agentrt …args` on one database: by `--db`, or by AGENTRT_DATABASE_URL when `viaEnv`. */
function onDatabase(url: string, options: { viaEnv?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  // The scripted models: never a real provider, whatever the developer's shell has set.
  const env = { OPENAI_API_KEY: "", AGENTRT_DATABASE_URL: options.viaEnv === true ? url : "", ...options.env };
  const cli = (...args: string[]) => agentrtProcess(options.viaEnv === true ? args : [...args, "--db", url], { env });
  /** `--json`: one JSON object on stdout, nothing on stderr. */
  const json = async <T = RunJson>(...args: string[]): Promise<{ code: number | null; view: T }> => {
    const result = await cli(...args, "--json");
    expect(result.stderr, explain(args, result)).toBe("");
    return { code: result.code, view: JSON.parse(result.stdout) as T };
  };
  /** What the simulated world performed, read in this process: a check beside the walkthrough, not a step of it. */
  const calls = async () => (JSON.parse((await runCli(["world", "--json", "--db", url])).out) as { calls: Record<string, number> }).calls;
  /** `status <run_id> --json` read in this process. */
  const status = async (runId: string) => JSON.parse((await runCli(["status", runId, "--json", "--db", url])).out) as RunJson;
  return { cli, json, calls, status };
}

const explain = (args: string[], result: ProcessResult) => `agentrt ${args.join(" ")} exited ${String(result.code)}: ${result.stderr}`;

/** `run ops_rollback` as the README shows it: exit 0 (paused is a success), the action bound to its hash. */
async function pausedRollback(db: ReturnType<typeof onDatabase>): Promise<RunJson> {
  const { code, view } = await db.json("run", "ops_rollback", "--message", MESSAGE, "--user", "alice");
  expect(code).toBe(0);
  expect(view).toMatchObject({ graph: "ops_rollback", status: "WAITING_APPROVAL", result: null });
  expect(view.pending).toEqual([expect.objectContaining({ tool: "rollback_deployment", args: { service: "payments", target_revision: "rev-184" }, args_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
  return view;
}

describe.concurrent("the ops_rollback walkthrough on PostgreSQL, one process per command", () => {
  it("pauses, is approved from another process with exactly one rollback, and world/trace/runs/status show it", async () => {
    const db = onDatabase(schema.fresh("a").url);
    const paused = await pausedRollback(db);
    const action = paused.pending[0]!;

    // A wrong hash is refused with one line, exit 2, and changes nothing.
    const wrong = await db.cli("approve", paused.run_id, "--action", action.action_id, "--args-hash", "0".repeat(64));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim().split("\n")).toHaveLength(1);
    expect(wrong.stderr).toContain("ARGS_HASH_MISMATCH");
    expect(await db.status(paused.run_id)).toEqual(paused);
    expect((await db.calls()).rollback_deployment ?? 0).toBe(0);

    const approved = await db.json("approve", paused.run_id, "--action", action.action_id, "--args-hash", action.args_hash);
    expect(approved.code).toBe(0);
    expect(approved.view).toMatchObject({ run_id: paused.run_id, status: "SUCCEEDED", pending: [] });
    expect(JSON.stringify(approved.view.result)).toContain("Rolled back to rev-184");

    const [world, trace, runs, status] = await Promise.all([
      db.json<{ calls: Record<string, number> }>("world"),
      db.json<{ run_id: string; spans: { kind: string; status: string; parent_id: string | null; tool?: string; external_operation_id?: string | null }[] }>("trace", paused.run_id),
      db.json<{ runs: { run_id: string; status: string; graph: string }[] }>("runs"),
      db.json("status", paused.run_id),
    ]);
    expect(world.view.calls).toMatchObject({ get_deployment: 1, query_logs: 1, rollback_deployment: 1, verify_deployment: 1 });
    const spans = trace.view.spans;
    expect(spans.filter((s) => s.kind === "invoke_agent")).toEqual([expect.objectContaining({ status: "ok", parent_id: null })]);
    expect(spans.filter((s) => s.kind === "tool_call").map((s) => s.tool)).toEqual(["get_deployment", "query_logs", "rollback_deployment", "verify_deployment"]);
    expect(spans.find((s) => s.tool === "rollback_deployment")?.external_operation_id).toMatch(/^op_deploy_/);
    expect(spans.filter((s) => s.kind === "approval_wait").map((s) => s.status)).toEqual(["ok"]);
    expect(runs.view.runs).toEqual([expect.objectContaining({ run_id: paused.run_id, status: "SUCCEEDED", graph: "ops_rollback" })]);
    expect(status).toMatchObject({ code: 0, view: approved.view });

    // The decision is spent: a second approve is refused and nothing rolls back again.
    const again = await db.cli("approve", paused.run_id, "--action", action.action_id, "--args-hash", action.args_hash);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("RUN_NOT_WAITING");
    expect((await db.calls()).rollback_deployment).toBe(1);
  }, 120_000);

  it("reject from another process: the model goes on without the rollback, SUCCEEDED, nothing rolled back", async () => {
    const db = onDatabase(schema.fresh("r").url);
    const paused = await pausedRollback(db);
    const action = paused.pending[0]!;
    const rejected = await db.json("reject", paused.run_id, "--action", action.action_id, "--args-hash", action.args_hash, "--reason", "not now");
    expect(rejected.code).toBe(0);
    expect(rejected.view.status).toBe("SUCCEEDED");
    expect(String(rejected.view.result)).toMatch(/rejected/);
    expect((await db.calls()).rollback_deployment ?? 0).toBe(0);
  }, 120_000);

  it("cancel of a run still waiting lists the side effect it already performed, which stays done", async () => {
    const db = onDatabase(schema.fresh("c").url, { env: { AGENTRT_CONFIG: TWO_APPROVALS } });
    const paused = await db.json("run", "two_rollbacks", "--message", "roll back both", "--user", "alice");
    expect(paused.view.status).toBe("WAITING_APPROVAL");
    const payments = paused.view.pending.find((p) => p.args.service === "payments")!;
    const half = await db.json("approve", paused.view.run_id, "--action", payments.action_id, "--args-hash", payments.args_hash);
    expect(half.view.status).toBe("WAITING_APPROVAL");
    expect(half.view.pending.map((p) => p.args.service)).toEqual(["checkout"]);

    const canceled = await db.json("cancel", paused.view.run_id, "--by", "ops", "--reason", "wrong service");
    expect(canceled.code).toBe(0);
    expect(canceled.view.status).toBe("CANCELED");
    expect(canceled.view.side_effects).toEqual([expect.objectContaining({ tool: "rollback_deployment", status: "done", external_operation_id: expect.stringMatching(/^op_deploy_/) })]);
    expect((await db.calls()).rollback_deployment).toBe(1);
    expect((await db.status(paused.view.run_id)).status).toBe("CANCELED");
  }, 120_000);

  it("works the same with AGENTRT_DATABASE_URL instead of --db", async () => {
    const db = onDatabase(schema.fresh("e").url, { viaEnv: true });
    const paused = await pausedRollback(db);
    const action = paused.pending[0]!;
    const approved = await db.json("approve", paused.run_id, "--action", action.action_id, "--args-hash", action.args_hash);
    expect(approved).toMatchObject({ code: 0, view: { status: "SUCCEEDED" } });
    const [world, runs] = await Promise.all([db.json<{ calls: Record<string, number> }>("world"), db.json<{ runs: { run_id: string; status: string }[] }>("runs")]);
    expect(world.view.calls.rollback_deployment).toBe(1);
    expect(runs.view.runs).toEqual([expect.objectContaining({ run_id: paused.run_id, status: "SUCCEEDED" })]);
  }, 120_000);
});
