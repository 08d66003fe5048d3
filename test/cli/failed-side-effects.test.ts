// A run that ends without success after a side effect says so wherever it is shown: `run` and `status` list what
// was performed (it stays done), with --json as `side_effects`, so a person can follow up.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("a failed run's side effects", () => {
  it("are listed by run and status; a run that failed before any has none", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "agentrt-failed-effects-")), "runs.db");
    const message = "Check order 10086; if it is delayed, notify the sales rep";
    // The third model call sends the message; the fourth, which would answer, is over the budget.
    const run = await runCli(["run", "order_delay", "--message", message, "--max-model-calls", "3", "--db", db, "--json"]);
    expect(run.code).toBe(1);
    const view = JSON.parse(run.out) as { run_id: string; status: string; error: { code: string }; side_effects?: unknown[] };
    expect(view).toMatchObject({ status: "FAILED", error: { code: "BUDGET_MODEL_CALLS" } });
    expect(view.side_effects).toEqual([
      { tool: "send_message", tool_call_id: expect.any(String), external_operation_id: "op_messaging_1", idempotency_key: expect.any(String), status: "done" },
    ]);
    const status = await runCli(["status", view.run_id, "--db", db]);
    expect(status.out).toMatch(/side effects already performed \(they stay done\):\n {4}send_message \(call .*, operation op_messaging_1\)/);
    const early = await runCli(["run", "order_delay", "--message", message, "--max-model-calls", "1", "--db", db, "--json"]);
    expect(JSON.parse(early.out)).not.toHaveProperty("side_effects");
  });
});
