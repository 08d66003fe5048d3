import { describe, expect, it } from "vitest";
import { definePolicy, defaultPolicy } from "agentrt";
import { evaluatePolicy, isApproverAllowed } from "agentrt/graph";

const tool = (name: string, risk: "read" | "write" | "destructive", tags: string[] = []) => ({ name, risk, tags });

describe("policy", () => {
  it("defaults from risk: read and write allowed, destructive needs the requester's approval", () => {
    const subject = { user: "alice", roles: [] };
    expect(evaluatePolicy(defaultPolicy, { ...subject, tool: tool("get", "read") }).effect).toBe("allow");
    expect(evaluatePolicy(defaultPolicy, { ...subject, tool: tool("send", "write") }).effect).toBe("allow");
    expect(evaluatePolicy(defaultPolicy, { ...subject, tool: tool("rollback", "destructive") })).toMatchObject({
      effect: "approve", approvers: ["alice"],
    });
  });

  it("applies the first matching rule by tool, tag, risk, user and role", () => {
    const policy = definePolicy({
      rules: [
        { tools: ["rollback"], roles: ["intern"], effect: "deny", reason: "no rollbacks for interns" },
        { tools: ["rollback"], effect: "approve", approvers: ["role:sre", "$requester"] },
        { tags: ["billing"], users: ["bob"], effect: "deny" },
        { risk: ["write"], effect: "approve", approvers: ["*"] },
      ],
      defaults: { destructive: { effect: "deny" } },
    });
    expect(evaluatePolicy(policy, { tool: tool("rollback", "destructive"), user: "ivy", roles: ["intern"] }))
      .toEqual({ effect: "deny", approvers: [], decisions: [], reason: "no rollbacks for interns" });
    expect(evaluatePolicy(policy, { tool: tool("rollback", "destructive"), user: "carol", roles: ["dev"] }))
      .toMatchObject({ effect: "approve", approvers: ["role:sre", "carol"] });
    expect(evaluatePolicy(policy, { tool: tool("charge", "read", ["billing"]), user: "bob", roles: [] }).effect).toBe("deny");
    expect(evaluatePolicy(policy, { tool: tool("charge", "read", ["billing"]), user: "amy", roles: [] }).effect).toBe("allow");
    expect(evaluatePolicy(policy, { tool: tool("send", "write"), user: "amy", roles: [] }).approvers).toEqual(["*"]);
    expect(evaluatePolicy(policy, { tool: tool("wipe", "destructive"), user: "amy", roles: [] }).effect).toBe("deny");
  });

  it("checks approvers by id, role and wildcard", () => {
    expect(isApproverAllowed(["alice"], { by: "alice" })).toBe(true);
    expect(isApproverAllowed(["alice"], { by: "bob" })).toBe(false);
    expect(isApproverAllowed(["role:sre"], { by: "bob", roles: ["sre"] })).toBe(true);
    expect(isApproverAllowed(["role:sre"], { by: "bob", roles: ["dev"] })).toBe(false);
    expect(isApproverAllowed(["*"], { by: "anyone" })).toBe(true);
  });

  it("matches a rule with `when` on the call's arguments only, and says which decisions an approver may give", () => {
    const policy = definePolicy({
      rules: [
        { tools: ["refund"], when: (args) => Number(args.amount) > 100, effect: "approve", approvers: ["role:finance"], decisions: ["approve", "reject"] },
        { tools: ["refund"], effect: "approve" },
      ],
    });
    const subject = { user: "alice", roles: [], tool: tool("refund", "destructive") };
    expect(evaluatePolicy(policy, { ...subject, args: { amount: 500 } })).toMatchObject({ approvers: ["role:finance"], decisions: ["approve", "reject"] });
    expect(evaluatePolicy(policy, { ...subject, args: { amount: 5 } })).toMatchObject({ approvers: ["alice"], decisions: ["approve", "edit", "reject"] });
    // Without arguments to judge, a `when` rule never matches.
    expect(evaluatePolicy(policy, subject)).toMatchObject({ approvers: ["alice"] });
    expect(evaluatePolicy(definePolicy({ rules: [{ tools: "*", effect: "deny" }] }), subject).decisions).toEqual([]);
  });
});
