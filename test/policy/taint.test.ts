import { describe, expect, it } from "vitest";
import { definePolicy, evaluatePolicy, whenTainted } from "../../src/policy/index.js";
import type { ToolRisk } from "../../src/tools/define-tool.js";

const subject = (name: string, risk: ToolRisk, tainted?: boolean) => ({ tool: { name, risk, tags: [] }, user: "alice", roles: [], tainted });

describe("policy taint", () => {
  const policy = definePolicy({ taint: true, rules: [{ tools: ["delete_ticket"], effect: "allow" }, { tools: ["drop_db"], effect: "deny" }] });

  it("turns an outright allow of a write or destructive tool into an approval once tainted", () => {
    expect(evaluatePolicy(policy, subject("delete_ticket", "destructive")).effect).toBe("allow");
    const gated = evaluatePolicy(policy, subject("delete_ticket", "destructive", true));
    expect(gated).toMatchObject({ effect: "approve", approvers: ["alice"] });
    expect(gated.reason).toMatch(/taint/);
    expect(evaluatePolicy(policy, subject("update_ticket", "write", true)).effect).toBe("approve");
  });

  it("leaves reads allowed and denials denied", () => {
    expect(evaluatePolicy(policy, subject("search_docs", "read", true)).effect).toBe("allow");
    expect(evaluatePolicy(policy, subject("drop_db", "destructive", true)).effect).toBe("deny");
  });

  it("whenTainted judges every call as tainted, and is a no-op without taint", () => {
    expect(evaluatePolicy(whenTainted(policy), subject("delete_ticket", "destructive")).effect).toBe("approve");
    const plain = definePolicy({ rules: [{ tools: ["delete_ticket"], effect: "allow" }] });
    expect(evaluatePolicy(whenTainted(plain), subject("delete_ticket", "destructive")).effect).toBe("allow");
    const custom = definePolicy({ taint: { risk: ["destructive"], approvers: ["role:lead"] } , defaults: { destructive: { effect: "allow" } } });
    expect(evaluatePolicy(custom, subject("update_ticket", "write", true)).effect).toBe("allow");
    expect(evaluatePolicy(custom, subject("delete_ticket", "destructive", true)).approvers).toEqual(["role:lead"]);
  });
});
