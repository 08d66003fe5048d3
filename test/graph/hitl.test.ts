// LangChain's HITL decisions become agentrt decisions bound to the answered interrupt's action, never to another.
// The SDK's own normalizer, as `useStream` applies it to every interrupt (public subpath `@langchain/langgraph-sdk/ui`).
import { normalizeHitlInterruptPayload } from "@langchain/langgraph-sdk/ui";
import { describe, expect, it } from "vitest";
import { hitlRequestFields, hitlToDecisions, isHitlResponse } from "../../src/graph/hitl.js";
import { agentChatUiShowsButtons } from "../helpers/agent-chat-ui.js";

const target = { action_id: "act_1", args_hash: "h1", tool: "refund" };
const caller = { by: "ann", roles: ["finance"] };

describe("HITL decisions", () => {
  it("tells the dialects apart", () => {
    expect(isHitlResponse({ decisions: [] })).toBe(true);
    expect(isHitlResponse({ action_id: "act_1", decision: "approve" })).toBe(false);
    expect(isHitlResponse([{ decisions: [] }])).toBe(false);
  });

  it("binds each decision to the action of its position, decided by the caller", () => {
    expect(hitlToDecisions([target], { decisions: [{ type: "approve" }] }, caller)).toEqual([
      { action_id: "act_1", args_hash: "h1", decision: "approve", by: "ann", roles: ["finance"] },
    ]);
    expect(hitlToDecisions([target], { decisions: [{ type: "reject", message: "wrong account" }] }, caller)[0])
      .toMatchObject({ decision: "reject", comment: "wrong account" });
  });

  it("turns an edit (either spelling) into edited arguments", () => {
    for (const edit of [
      { type: "edit", edited_action: { name: "refund", args: { amount: 5 } } },
      { type: "edit", editedAction: { name: "refund", args: { amount: 5 } } },
    ]) {
      expect(hitlToDecisions([target], { decisions: [edit] }, caller)[0]).toMatchObject({ decision: "edit", edited_args: { amount: 5 } });
    }
  });

  it("refuses a list of the wrong length, an unknown type, and an edit that renames the tool", () => {
    expect(() => hitlToDecisions([target], { decisions: [] }, caller)).toThrow(/expected 1 decision/);
    expect(() => hitlToDecisions([target], { decisions: [{ type: "approve" }, { type: "approve" }] }, caller)).toThrow(/got 2/);
    expect(() => hitlToDecisions([target], { decisions: [{ type: "respond", message: "x" }] }, caller)).toThrow(/not a HITL decision/);
    expect(() => hitlToDecisions([target], { decisions: [{ type: "edit", edited_action: { name: "delete_all", args: {} } }] }, caller))
      .toThrow(/arguments only/);
    try {
      hitlToDecisions([target], { decisions: [] }, caller);
    } catch (error) {
      expect(error).toMatchObject({ code: "BAD_INPUT" });
    }
  });
});

describe("HITL request fields through the SDK's normalizer", () => {
  const fields = hitlRequestFields({
    tool: "rollback_deployment", args: { service: "payments" }, reason: "rollbacks need approval",
    allowed_decisions: ["approve", "edit", "reject"], args_schema: { type: "object" },
  });
  const normalized = normalizeHitlInterruptPayload({ action_id: "act_1", ...fields }) as Record<string, unknown>;

  it("keeps every field agent-chat-ui and useStream read, in both spellings, in whichever array is read", () => {
    const config = {
      action_name: "rollback_deployment", actionName: "rollback_deployment",
      allowed_decisions: ["approve", "edit", "reject"], allowedDecisions: ["approve", "edit", "reject"],
      args_schema: { type: "object" }, argsSchema: { type: "object" },
    };
    const request = { name: "rollback_deployment", args: { service: "payments" }, description: "rollbacks need approval" };
    for (const value of [fields as unknown as Record<string, unknown>, normalized]) {
      for (const key of ["review_configs", "reviewConfigs"]) expect(value[key]).toEqual([expect.objectContaining(config)]);
      for (const key of ["action_requests", "actionRequests"]) expect(value[key]).toEqual([expect.objectContaining(request)]);
    }
  });

  it("passes agent-chat-ui's check for its approve / edit / reject buttons", () => {
    expect(agentChatUiShowsButtons({ id: "i1", value: normalized })).toBe(true);
    expect(agentChatUiShowsButtons([{ id: "i1", value: normalized }])).toBe(true);
    // The check's own sanity: a camelCase-only config (what the normalizer made of the old payload) fails it.
    const camelOnly = { ...normalized, review_configs: [{ actionName: "rollback_deployment", allowedDecisions: ["approve"] }] };
    expect(agentChatUiShowsButtons({ id: "i1", value: camelOnly })).toBe(false);
  });
});
