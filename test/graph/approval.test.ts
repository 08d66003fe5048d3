import { HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, definePolicy, defineTool, readPendingActions, resumeCommand, type AgentRunConfig, type PendingAction } from "agentrt";
import { argsHash, readEnvelope } from "agentrt/tools";
import { checkResume } from "agentrt/graph";
import { ScriptedChatModel } from "agentrt/testing";

function setup(services: string[]) {
  const executed: string[] = [];
  const rollback = defineTool({
    name: "rollback", description: "Roll a service back", risk: "destructive",
    schema: z.object({ service: z.string() }),
    execute: ({ service }) => { executed.push(service); return { rolledBack: service }; },
  });
  const model = new ScriptedChatModel({
    script: ({ turn, messages }) => turn === 1
      ? { toolCalls: services.map((service) => ({ name: "rollback", args: { service } })) }
      : { content: messages.filter((m) => m.getType() === "tool").map((m) => readEnvelope(m as ToolMessage)?.status).join(",") },
  });
  const policy = definePolicy({ rules: [{ tools: ["rollback"], effect: "approve", approvers: ["$requester", "role:sre"] }] });
  const checkpointer = new MemorySaver();
  // A fresh compile per call stands in for another process sharing the checkpointer.
  const compile = () => defineAgent({ model, tools: [rollback], policy }).compile({ checkpointer });
  const config: AgentRunConfig = { configurable: { thread_id: "t", run_id: "run_1", user: "alice" } };
  const pending = async () => readPendingActions(await compile().getState(config));
  return { executed, compile, config, pending };
}

const decide = (a: PendingAction, decision: "approve" | "reject", by = "alice") =>
  ({ action_id: a.action_id, args_hash: a.args_hash, decision, by });

describe("approval interrupts", () => {
  it("pauses with a payload bound to the exact action and runs once after approval", async () => {
    const { executed, compile, config, pending } = setup(["payments"]);
    const first = await compile().invoke({ messages: [new HumanMessage("roll back payments")] }, config);
    expect((first as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    const [action] = await pending();
    expect(action).toMatchObject({ tool: "rollback", args: { service: "payments" }, approvers: ["alice", "role:sre"] });
    expect(action!.args_hash).toBe(argsHash("rollback", { service: "payments" }));
    expect(action!.action_id).toMatch(/^act_[0-9a-f]{16}$/);
    expect(action!.reason).toContain("rollback");
    expect(executed).toEqual([]);
    const out = await compile().invoke(resumeCommand([action!], decide(action!, "approve")), config);
    expect(executed).toEqual(["payments"]);
    expect(out.result).toBe("done");
    expect(out.steps[0]).toMatchObject({ status: "done", approvedBy: "alice" });
    expect(await pending()).toEqual([]);
  });

  it("refuses a wrong hash, an unknown action and a wrong approver before resuming", async () => {
    const { compile, config, pending } = setup(["payments"]);
    await compile().invoke({ messages: [new HumanMessage("go")] }, config);
    const list = await pending();
    const action = list[0]!;
    expect(() => checkResume(list, { ...decide(action, "approve"), args_hash: argsHash("rollback", { service: "orders" }) }))
      .toThrow(expect.objectContaining({ code: "ARGS_HASH_MISMATCH" }));
    expect(() => checkResume(list, { ...decide(action, "approve"), action_id: "act_nope" }))
      .toThrow(expect.objectContaining({ code: "UNKNOWN_ACTION" }));
    expect(() => checkResume(list, decide(action, "approve", "mallory")))
      .toThrow(expect.objectContaining({ code: "APPROVER_NOT_ALLOWED" }));
    expect(() => checkResume(list, { decision: "yes" })).toThrow(expect.objectContaining({ code: "BAD_INPUT" }));
    expect(checkResume(list, { ...decide(action, "approve", "bob"), roles: ["sre"] }).action.action_id).toBe(action.action_id);
    expect(await pending()).toEqual(list);
  });

  it("refuses two decisions for one action in one Command instead of letting the last win", async () => {
    const { executed, compile, config, pending } = setup(["payments"]);
    await compile().invoke({ messages: [new HumanMessage("go")] }, config);
    const list = await pending();
    const action = list[0]!;
    expect(() => resumeCommand(list, [decide(action, "approve"), decide(action, "reject")]))
      .toThrow(expect.objectContaining({ code: "BAD_INPUT", message: expect.stringMatching(/more than once/) as unknown }));
    expect(executed).toEqual([]);
    expect(await pending()).toEqual(list);
  });

  it("keeps waiting when a bad decision reaches the graph around checkResume", async () => {
    const { executed, compile, config, pending } = setup(["payments"]);
    await compile().invoke({ messages: [new HumanMessage("go")] }, config);
    const [action] = await pending();
    const forged = { ...decide(action!, "approve", "mallory") };
    await compile().invoke(new Command({ resume: { [action!.interrupt_id]: forged } }), config);
    expect(executed).toEqual([]);
    const stillList = await pending();
    expect(stillList).toHaveLength(1);
    const still = stillList[0];
    expect(still).toMatchObject({ action_id: action!.action_id, args_hash: action!.args_hash });
    expect(still!.refused).toContain("mallory");
    const out = await compile().invoke(resumeCommand([still!], decide(still!, "approve")), config);
    expect(executed).toEqual(["payments"]);
    expect(out.result).toBe("done");
  });

  it("returns a rejection to the model as a tool result and continues", async () => {
    const { executed, compile, config, pending } = setup(["payments"]);
    await compile().invoke({ messages: [new HumanMessage("go")] }, config);
    const [action] = await pending();
    const out = await compile().invoke(resumeCommand([action!], decide(action!, "reject")), config);
    expect(executed).toEqual([]);
    expect(out.result).toBe("rejected");
    const toolMessage = out.messages.find((m) => m.getType() === "tool") as ToolMessage;
    expect(toolMessage.status).toBe("error");
    expect(readEnvelope(toolMessage)?.error?.message).toContain("rejected by alice");
  });

  it("decides two parallel approvals separately in two invocations", async () => {
    const { executed, compile, config, pending } = setup(["payments", "orders"]);
    await compile().invoke({ messages: [new HumanMessage("roll back both")] }, config);
    const both = await pending();
    expect(both.map((a) => a.args.service).sort()).toEqual(["orders", "payments"]);
    expect(new Set(both.map((a) => a.action_id)).size).toBe(2);
    expect(new Set(both.map((a) => a.interrupt_id)).size).toBe(2);
    const orders = both.find((a) => a.args.service === "orders")!;
    const payments = both.find((a) => a.args.service === "payments")!;

    const second = await compile().invoke(resumeCommand(both, decide(orders, "approve")), config);
    expect(executed).toEqual(["orders"]);
    expect(second.result).toBeNull();
    const left = await pending();
    expect(left).toHaveLength(1);
    expect(left[0]).toMatchObject({ action_id: payments.action_id, args_hash: payments.args_hash });
    expect(left[0]!.interrupt_id).toBe(payments.interrupt_id);

    const out = await compile().invoke(resumeCommand(left, decide(left[0]!, "reject")), config);
    expect(executed).toEqual(["orders"]);
    expect(out.result).toBe("rejected,done");
    expect(out.steps.map((s) => [s.tool, s.status])).toEqual([["rollback", "rejected"], ["rollback", "done"]]);
    expect(await pending()).toEqual([]);
  });

  it("refuses a decision routed to another action's interrupt; both stay pending", async () => {
    const { executed, compile, config, pending } = setup(["payments", "orders"]);
    await compile().invoke({ messages: [new HumanMessage("roll back both")] }, config);
    const both = await pending();
    const [a, b] = both as [PendingAction, PendingAction];
    await compile().invoke(new Command({ resume: { [b.interrupt_id]: decide(a, "approve") } }), config);
    expect(executed).toEqual([]);
    const after = await pending();
    expect(after.map((p) => p.action_id).sort()).toEqual([a.action_id, b.action_id].sort());
    expect(after.find((p) => p.action_id === b.action_id)!.refused).toContain("no pending action");
  });
});
