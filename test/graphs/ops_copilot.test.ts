// ops_copilot through the real runtime: the supervisor hands work to the deploy and comms specialists (subgraphs);
// the rollback inside the deploy specialist waits for approval and the specialists' calls reach the trace.
import { isToolMessage, type BaseMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { graph, recipientIn } from "../../graphs/ops_copilot.js";
import { parseSendTask } from "../../graphs/ops_copilot-specialists.js";
import type { SentMessage } from "../../graphs/sim/index.js";
import { openScenarioRuntime, withSimEnv, type ScenarioRuntime } from "./scenario-runtime.js";
import { SqliteSaver } from "agentrt/checkpointers";
import { runtimeSqlite } from "../../src/runtime/internals.js";

let rt: ScenarioRuntime;
beforeEach(() => {
  rt = openScenarioRuntime();
});
afterEach(() => rt.close());

const REQUEST = "The payments deploy failed. Find out why, roll back if needed (ask me first), and notify payments-oncall.";
const submit = (message = REQUEST) => rt.runtime.submit({ graph: "ops_copilot", message, user: "alice" });

/** The specialists the supervisor handed work to, in order, read from the thread's checkpointed messages. */
async function handoffs(threadId: string): Promise<string[]> {
  // A copy reads through the runtime's saver: the module's graph is shared with every test file in the worker.
  const reader = graph.withConfig({});
  reader.checkpointer = new SqliteSaver(runtimeSqlite(rt.runtime));
  const { values } = await reader.getState({ configurable: { thread_id: threadId } });
  return (values.messages as BaseMessage[])
    .filter((m) => isToolMessage(m) && m.name?.startsWith("transfer_to_") === true && m.status === "success")
    .map((m) => m.name!.slice("transfer_to_".length));
}

async function startAndPause() {
  const run = await submit();
  expect(run.status).toBe("WAITING_APPROVAL");
  expect(run.pending).toHaveLength(1);
  expect(run.pending[0]).toMatchObject({ tool: "rollback_deployment", args: { service: "payments", target_revision: "rev-184" }, approvers: ["alice"] });
  expect((await rt.world()).calls).toEqual({ get_deployment: 1, query_logs: 1 });
  return run;
}

describe("ops_copilot", () => {
  it("delegates to the deploy and comms specialists; the rollback waits for approval and runs once", async () => {
    const paused = await startAndPause();
    const action = paused.pending[0]!;
    const run = await rt.runtime.approve(paused.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice" });
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/^Deploy: .*Rolled back to rev-184 \(operation op_deploy_1\); the service recovered/);
    expect(run.result).toMatch(/\nComms: Sent the update to payments-oncall by chat \(message msg_0001\)\.$/);
    expect(await handoffs(run.thread_id)).toEqual(["deploy_specialist", "comms_specialist"]);
    const world = (await rt.world());
    expect(world.calls).toEqual({ get_deployment: 1, query_logs: 1, rollback_deployment: 1, verify_deployment: 1, send_message: 1 });
    const sent = Object.values(world.systems.messaging ?? {}) as SentMessage[];
    expect(sent.map((m) => m.to)).toEqual(["payments-oncall"]);
    expect(sent[0]!.text).toMatch(/^\[payments\] .*PAYMENTS_SETTLEMENT_URL/);
  });

  it("traces the specialists' model and tool calls, not only the supervisor's", async () => {
    const paused = await startAndPause();
    const action = paused.pending[0]!;
    const run = await rt.runtime.approve(paused.run_id, { actionId: action.action_id, argsHash: action.args_hash });
    const spans = await rt.runtime.trace.spans(run.run_id);
    expect(spans.filter((s) => s.kind === "tool_call").map((s) => s.tool)).toEqual([
      "get_deployment", "query_logs", "rollback_deployment", "verify_deployment", "send_message",
    ]);
    // supervisor 3 + deploy specialist 5 + comms specialist 2
    expect(spans.filter((s) => s.kind === "model_call")).toHaveLength(10);
    expect(run.usage.model_calls).toBe(10);
  });

  it("reports a rejected rollback and still sends the update", async () => {
    const paused = await startAndPause();
    const action = paused.pending[0]!;
    const run = await rt.runtime.reject(paused.run_id, { actionId: action.action_id, argsHash: action.args_hash, reason: "not during the sale" });
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/The rollback of payments to rev-184 was rejected/);
    expect((await rt.world()).calls).toEqual({ get_deployment: 1, query_logs: 1, send_message: 1 });
  });

  it("only involves the deploy specialist when no update is asked for, and retries transient faults", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "get_deployment:1" }, () => submit("Is the search deploy healthy?"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toBe("Deploy: search is healthy on rev-310; no rollback is needed.");
    expect(await handoffs(run.thread_id)).toEqual(["deploy_specialist"]);
    expect((await rt.world())).toMatchObject({ calls: { get_deployment: 1 }, failures: { get_deployment: 1 } });
  });

  it("reads recipients and comms tasks", () => {
    expect(recipientIn("tell ops@example.com", "payments")).toBe("ops@example.com");
    expect(recipientIn("and notify rep_wang", "payments")).toBe("rep_wang");
    expect(recipientIn("and tell the team", "checkout")).toBe("checkout-oncall");
    expect(parseSendTask("Send to payments-oncall: rolled back")).toEqual({ to: "payments-oncall", text: "rolled back" });
    expect(parseSendTask("say hi")).toBeUndefined();
  });
});
