// Reading a foreign HITL interrupt as agentrt pending actions, and the `{ decisions }` it is resumed with.
import { describe, expect, it } from "vitest";
import type { ApprovalResume } from "../../src/graph/approval.js";
import { readPendingActions } from "../../src/graph/approval.js";
import { foreignActionId, foreignPendingActions, foreignResumeValues, isForeignHitlRequest } from "../../src/graph/foreign-hitl.js";
import { hitlRequestFields } from "../../src/graph/hitl.js";
import { argsHash } from "../../src/tools/args-hash.js";

const LANGCHAIN_JS = {
  actionRequests: [
    { name: "send_email", args: { to: "a@x.io" }, description: "sends at once" },
    { name: "post", args: { channel: "#ops" }, description: "posts" },
  ],
  reviewConfigs: [
    { actionName: "send_email", allowedDecisions: ["approve", "edit", "reject"], argsSchema: { type: "object" } },
    { actionName: "post", allowedDecisions: ["approve", "reject"] },
  ],
};

describe("foreign HITL interrupts", () => {
  it("are told from agentrt's own approvals, which carry the HITL fields too", () => {
    expect(isForeignHitlRequest(LANGCHAIN_JS)).toBe(true);
    expect(isForeignHitlRequest({ action_requests: [{ name: "x", args: {} }], review_configs: [] })).toBe(true);
    const own = { action_id: "act_1", args_hash: "h", ...hitlRequestFields({ tool: "x", args: {}, reason: "r", allowed_decisions: ["approve"] }) };
    expect(isForeignHitlRequest(own)).toBe(false);
    expect(isForeignHitlRequest({ question: "which order?" })).toBe(false);
    expect(isForeignHitlRequest({ actionRequests: [], reviewConfigs: [] })).toBe(false);
  });

  it("become one pending action per request, with a stable id, the args hash and the review config's decisions", () => {
    const actions = foreignPendingActions("int_1", LANGCHAIN_JS, { requester: "alice" });
    expect(actions.map((a) => [a.action_id, a.tool, a.args_hash, a.approvers, a.allowed_decisions, a.args_schema])).toEqual([
      [foreignActionId("int_1", 0), "send_email", argsHash("send_email", { to: "a@x.io" }), ["alice"], ["approve", "edit", "reject"], { type: "object" }],
      [foreignActionId("int_1", 1), "post", argsHash("post", { channel: "#ops" }), ["alice"], ["approve", "reject"], undefined],
    ]);
    expect(foreignActionId("int_1", 0)).not.toBe(foreignActionId("int_2", 0));
    // Read from a snapshot: only an unfinished task's interrupt is live.
    const tasks = [{ interrupts: [{ id: "int_1", value: LANGCHAIN_JS }] }, { result: {}, interrupts: [{ id: "int_0", value: LANGCHAIN_JS }] }];
    expect(readPendingActions({ tasks } as never, { requester: "alice" }).map((a) => a.interrupt_id)).toEqual(["int_1", "int_1"]);
  });

  it("resume with { decisions } in request order, edits as editedAction and edited_action, rejects with a message", () => {
    const [email, post] = foreignPendingActions("int_1", LANGCHAIN_JS, { requester: "alice" }) as [never, never];
    const decide = (action: { action_id: string; args_hash: string }, d: Partial<ApprovalResume>): ApprovalResume =>
      ({ action_id: action.action_id, args_hash: action.args_hash, by: "alice", decision: "approve", ...d });
    const values = foreignResumeValues([
      { action: post, resume: decide(post, { decision: "reject", comment: "no" }) },
      { action: email, resume: decide(email, { decision: "edit", edited_args: { to: "b@x.io" } }) },
    ]);
    const edited = { name: "send_email", args: { to: "b@x.io" } };
    expect(values).toEqual({ int_1: { decisions: [{ type: "edit", editedAction: edited, edited_action: edited }, { type: "reject", message: "no" }] } });
    expect(() => foreignResumeValues([{ action: email, resume: decide(email, {}) }])).toThrow(/decide all of them/);
  });
});
