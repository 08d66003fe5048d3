// LangChain's HITL decisions become agentrt decisions bound to the answered interrupt's action, never to another.
import { describe, expect, it } from "vitest";
import { hitlToDecisions, isHitlResponse } from "../../src/graph/hitl.js";

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
