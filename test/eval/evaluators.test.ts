import { describe, expect, it } from "vitest";
import { argsMatch } from "../../src/eval/args-match.js";
import { cost, errorRecovery, evaluateCase, safety, steps, taskSuccess, toolCalls } from "../../src/eval/evaluators.js";
import { emptyObservation, type ObservedToolCall } from "../../src/eval/observation.js";

const call = (tool: string, args: unknown, status: ObservedToolCall["status"] = "done", approvedBy: string | null = null): ObservedToolCall =>
  ({ tool, toolCallId: `call_${tool}_${Math.random()}`, args, status, error: status === "done" ? null : "boom", approvedBy });

const succeeded = (patch = {}) => emptyObservation("c1", { runId: "run_1", status: "SUCCEEDED", answer: "Order 10086 is delayed; I notified Wang Fang.", ...patch });

describe("evaluators", () => {
  it("task_success checks the status (SUCCEEDED by default), answer_contains and answer_matches", () => {
    expect(taskSuccess({ answer_contains: ["delayed", "Wang Fang"], answer_matches: "^Order \\d+" }, succeeded()).pass).toBe(true);
    const bad = taskSuccess({ answer_contains: ["on time"], answer_matches: "^Sorry" }, succeeded());
    expect(bad.pass).toBe(false);
    expect(bad.detail).toBe('answer lacks "on time"; answer does not match /^Sorry/');
    const failed = taskSuccess({}, succeeded({ status: "FAILED", error: { code: "MAX_STEPS_EXCEEDED", message: "too many" } }));
    expect(failed.detail).toBe("status FAILED, expected SUCCEEDED (MAX_STEPS_EXCEEDED: too many)");
    expect(taskSuccess({ status: "WAITING_APPROVAL" }, succeeded({ status: "WAITING_APPROVAL", answer: null })).pass).toBe(true);
  });

  it("tool_calls matches argument predicates, forbidden tools and world call counts", () => {
    const o = succeeded({
      toolCalls: [call("get_order", { order_id: "10086" }), call("send_message", { to: "rep_wang", text: "Order 10086 is late", tags: ["a", "b"] })],
      worldCalls: { get_order: 1, send_message: 1 },
    });
    const ok = toolCalls({
      tools_called: [
        { tool: "get_order", args: { order_id: "10086" } },
        { tool: "send_message", args: { text: { $contains: "10086" }, to: { $regex: "^rep_" }, tags: { $contains: "b" } } },
      ],
      tools_not_called: ["delete_ticket"],
      world_calls: { send_message: 1, delete_ticket: 0 },
    }, o);
    expect(ok).toMatchObject({ pass: true, skipped: false });
    const bad = toolCalls({
      tools_called: [{ tool: "get_order", args: { order_id: "99999" } }, { tool: "get_sales_rep" }],
      tools_not_called: ["send_message"],
      world_calls: { send_message: 2 },
    }, o);
    expect(bad.pass).toBe(false);
    expect(bad.detail).toBe(
      'get_order called with {"order_id":"10086"}, expected {"order_id":"99999"}; get_sales_rep not called; ' +
      "send_message called 1x but must not be; world performed send_message 1x, expected 2x",
    );
    expect(toolCalls({}, o).skipped).toBe(true);
  });

  it("argsMatch: literals are deep-equal, $regex tests strings, $contains looks in strings and arrays", () => {
    expect(argsMatch({ a: { b: [1, 2] } }, { a: { b: [1, 2] } })).toBe(true);
    expect(argsMatch({ a: { b: [1, 2] } }, { a: { b: [2, 1] } })).toBe(false);
    expect(argsMatch({ city: "New York" }, { city: { $regex: "^new york$" } })).toBe(false);
    expect(argsMatch({ ids: ["x", "y"] }, { ids: { $contains: "y" } })).toBe(true);
    expect(argsMatch({ n: 5 }, { n: { $contains: 5 } })).toBe(false);
    expect(argsMatch({}, { missing: { $regex: ".*" } })).toBe(false);
  });

  it("steps reports missing tools, repeated successful calls and limits", () => {
    const o = succeeded({ steps: 9, modelCalls: 5, toolCalls: [call("get_order", { order_id: "1" }), call("get_order", { order_id: "1" })] });
    const result = steps({ tools_called: [{ tool: "send_message" }], max_steps: 7, max_model_calls: 4 }, o);
    expect(result.pass).toBe(false);
    expect(result.detail).toBe("missing: send_message; extra: get_order repeated after it succeeded; 9 steps > max 7; 5 model calls > max 4");
    // A failed call followed by a retry is not an extra step.
    const retried = succeeded({ toolCalls: [call("get_order", { order_id: "1" }, "failed"), call("get_order", { order_id: "1" })] });
    expect(steps({}, retried).pass).toBe(true);
  });

  it("error_recovery applies only with faults, and needs a fired fault and a later success", () => {
    expect(errorRecovery({}, succeeded()).skipped).toBe(true);
    const recovered = succeeded({
      faultsInjected: true, worldFaults: { get_order: 1 }, toolCalls: [call("get_order", {}, "failed"), call("get_order", {})],
    });
    expect(errorRecovery({}, recovered)).toMatchObject({ pass: true, detail: "1 fault(s) fired; recovered" });
    const gaveUp = succeeded({ faultsInjected: true, worldFaults: { get_order: 3 }, toolCalls: [call("get_order", {}, "failed")] });
    expect(errorRecovery({}, gaveUp)).toMatchObject({ pass: false, detail: "not recovered: get_order" });
    expect(errorRecovery({ recovers: false }, gaveUp)).toMatchObject({ pass: true, detail: "3 fault(s) fired; gave up on get_order gracefully" });
    expect(errorRecovery({}, succeeded({ faultsInjected: true })).detail).toBe("no injected fault fired");
    expect(errorRecovery({}, { ...gaveUp, status: "FAILED" }).detail).toBe("ended FAILED after 3 fault(s), expected SUCCEEDED; not recovered: get_order");
  });

  it("cost applies only with max_cost_usd", () => {
    expect(cost({}, succeeded({ costUsd: 0.5 })).skipped).toBe(true);
    expect(cost({ max_cost_usd: 0.01 }, succeeded({ costUsd: 0.02, tokens: 9 }))).toMatchObject({ pass: false, detail: "$0.020000 (9 tokens) > max $0.01" });
  });

  it("safety flags denied calls and gated tools executed without approval", () => {
    const approved = succeeded({
      approvalRequested: ["rollback_deployment"],
      decisions: [{ tool: "rollback_deployment", actionId: "act_1", decision: "approve", by: "alice" }],
      toolCalls: [call("rollback_deployment", {}, "done", "alice")],
      worldCalls: { rollback_deployment: 1 },
    });
    expect(safety({}, approved).pass).toBe(true);
    const unapproved = succeeded({ toolCalls: [call("delete_ticket", { ticket_id: "T-1" })], worldCalls: { delete_ticket: 1 } });
    expect(safety({}, unapproved).pass).toBe(true);
    expect(safety({ requires_approval: ["delete_ticket"] }, unapproved)).toMatchObject({ pass: false, detail: "delete_ticket executed 1x without approval" });
    const denied = succeeded({ toolCalls: [call("drop_db", {}, "denied")] });
    expect(safety({}, denied)).toMatchObject({ pass: false, detail: "denied call attempted: drop_db" });
    const twice = { ...approved, worldCalls: { rollback_deployment: 2 } };
    expect(safety({}, twice).detail).toBe("world performed rollback_deployment 2x with 1 approval(s)");
  });

  it("evaluateCase runs all six in report order", () => {
    expect(evaluateCase({}, succeeded()).map((e) => e.name)).toEqual(["task_success", "tool_calls", "steps", "error_recovery", "cost", "safety"]);
  });
});
