// A side effect that cannot dedupe and may or may not have happened waits for a person (WAITING_APPROVAL).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { argsHash } from "../../src/tools/args-hash.js";
import { ledgerFor } from "../../src/ledger/executor.js";
import { counters, resetCounters } from "../fixtures/budget/graphs.js";
import { runCli } from "../helpers/cli.js";
import { runtimeSqlite } from "../../src/runtime/internals.js";

const CONFIG = fileURLToPath(new URL("../fixtures/budget/langgraph.json", import.meta.url));
const ARGS = { to: "bob", cents: 500 };

let runtime: Runtime;
beforeEach(() => {
  resetCounters();
  runtime = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-unknown-")), "u.db"), config: CONFIG });
});
afterEach(() => runtime.close());

async function timedOut() {
  counters.hangs = 1;
  const view = await runtime.submit({ graph: "unknown", message: "pay bob 5", user: "alice" });
  return view;
}

describe("unknown outcome of a side effect that cannot dedupe", () => {
  it("a timeout pauses the run for a person; no fallback runs and the model sees nothing yet", async () => {
    const view = await timedOut();
    expect(view.status).toBe("WAITING_APPROVAL");
    expect(view.pending).toHaveLength(1);
    expect(view.pending[0]).toMatchObject({ tool: "send_payment", args: ARGS, args_hash: argsHash("send_payment", ARGS), approvers: ["alice"] });
    expect(view.pending[0]?.reason).toMatch(/^outcome unknown: send_payment .* did not report back .*timed out.*same idempotency key/);
    expect(counters.toolCalls).toEqual({ send_payment: 1 });
    expect(counters.modelCalls.unknown).toBe(1);
    expect(await ledgerFor(runtimeSqlite(runtime)).list(view.run_id)).toMatchObject([{ status: "pending", attempts: 1 }]);
  });

  it("approve re-issues it once with the same idempotency key, and the run goes on", async () => {
    const waiting = await timedOut();
    const action = waiting.pending[0]!;
    const done = await runtime.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice" });
    expect(done.status).toBe("SUCCEEDED");
    expect(done.result).toMatch(/"paid":500/);
    const key = `${waiting.run_id}:pay_1:1`;
    expect(counters.keys.send_payment).toEqual([key, key]);
    expect(await ledgerFor(runtimeSqlite(runtime)).list(waiting.run_id)).toMatchObject([{ key, status: "done", attempts: 2, externalOperationId: "pay_2" }]);
    expect(counters.modelCalls.unknown).toBe(2);
  });

  it("reject tells the model it may not have happened, without calling again", async () => {
    const waiting = await timedOut();
    const action = waiting.pending[0]!;
    const done = await runtime.reject(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice", reason: "will check the bank" });
    expect(done.status).toBe("SUCCEEDED");
    expect(done.result).toMatch(/UNKNOWN_OUTCOME/);
    expect(done.result).toMatch(/may not have happened.*will check the bank/);
    expect(counters.toolCalls).toEqual({ send_payment: 1 });
  });

  it("recovery that finds an intent without a result asks too, without calling the tool", async () => {
    const queued = await runtime.submit({ graph: "unknown", message: "pay bob 5", user: "alice", queue: true });
    // As if a worker had written the intent and died inside the call.
    await ledgerFor(runtimeSqlite(runtime)).begin({ runId: queued.run_id, toolCallId: "pay_1", tool: "send_payment", argsHash: argsHash("send_payment", ARGS), idempotent: false });
    const view = await runtime.start(queued.run_id);
    expect(view.status).toBe("WAITING_APPROVAL");
    expect(view.pending[0]?.reason).toMatch(/outcome was never recorded/);
    expect(counters.toolCalls).toEqual({});
    const action = view.pending[0]!;
    const done = await runtime.approve(view.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice" });
    expect(done.status).toBe("SUCCEEDED");
    expect(counters.keys.send_payment).toEqual([`${view.run_id}:pay_1:1`]);
  });

  it("a re-issue that times out again asks again, and an old approval does not re-issue on replay", async () => {
    const waiting = await timedOut();
    const first = waiting.pending[0]!;
    counters.hangs = 1;
    const again = await runtime.approve(waiting.run_id, { actionId: first.action_id, argsHash: first.args_hash, by: "alice" });
    expect(again.status).toBe("WAITING_APPROVAL");
    expect(again.pending).toHaveLength(1);
    expect(again.pending[0]?.action_id).not.toBe(first.action_id);
    expect(counters.toolCalls.send_payment).toBe(2);
    const second = again.pending[0]!;
    const done = await runtime.approve(waiting.run_id, { actionId: second.action_id, argsHash: second.args_hash, by: "alice" });
    expect(done.status).toBe("SUCCEEDED");
    // Exactly one more issue: the first approval, replayed, did not re-issue a second time.
    expect(counters.toolCalls.send_payment).toBe(3);
    expect(await ledgerFor(runtimeSqlite(runtime)).list(waiting.run_id)).toMatchObject([{ status: "done", attempts: 3 }]);
  });

  it("after a policy approval, the unknown outcome is the only action pending, and the policy's approvers decide it", async () => {
    counters.hangs = 1;
    const gated = await runtime.submit({ graph: "unknown_gated", message: "pay bob 5", user: "alice" });
    const approval = gated.pending[0]!;
    const waiting = await runtime.approve(gated.run_id, { actionId: approval.action_id, argsHash: approval.args_hash, by: "alice" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(waiting.pending).toHaveLength(1);
    expect(waiting.pending[0]).toMatchObject({ approvers: ["alice", "role:sre"], reason: expect.stringMatching(/^outcome unknown/) });
    const action = waiting.pending[0]!;
    const done = await runtime.approve(gated.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "oncall", roles: ["sre"] });
    expect(done.status).toBe("SUCCEEDED");
    expect(counters.toolCalls).toEqual({ send_payment: 2 });
  });

  it("agentrt run shows why the action waits (exit 0: waiting)", async () => {
    counters.hangs = 1;
    const previous = process.env.AGENTRT_CONFIG;
    process.env.AGENTRT_CONFIG = CONFIG;
    try {
      const result = await runCli(["run", "unknown", "--message", "pay bob 5", "--db", join(mkdtempSync(join(tmpdir(), "agentrt-unknown-")), "c.db")]);
      expect(result.code).toBe(0);
      expect(result.out).toMatch(/WAITING_APPROVAL[\s\S]*waiting for approval: send_payment[\s\S]*outcome unknown: send_payment/);
    } finally {
      if (previous === undefined) delete process.env.AGENTRT_CONFIG;
      else process.env.AGENTRT_CONFIG = previous;
    }
  });

  it("a ledger that cannot be written fails the run DB_WRITE_FAILED; the model never sees a tool failure", async () => {
    ledgerFor(runtimeSqlite(runtime));
    runtimeSqlite(runtime).exec("DROP TABLE tool_ledger");
    const view = await runtime.submit({ graph: "unknown", message: "pay bob 5", user: "alice" });
    expect(view.status).toBe("FAILED");
    expect(view.error?.code).toBe("DB_WRITE_FAILED");
    expect(counters.toolCalls).toEqual({});
    expect(counters.modelCalls.unknown).toBe(1);
  });
});
