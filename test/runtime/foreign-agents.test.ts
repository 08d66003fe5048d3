// Foreign agents under the Runtime: LangGraph's createReactAgent whose tool interrupts in the HITL shape, and a
// createAgent whose HITL interrupt holds two actions under an agentrt policy. Their interrupts become
// WAITING_APPROVAL with agentrt's pending actions; decisions are bound and checked before anything resumes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { effects } from "../fixtures/foreign/graphs.js";

const CONFIG = fileURLToPath(new URL("../fixtures/foreign/langgraph.json", import.meta.url));
const opened: Runtime[] = [];

function open(): Runtime {
  const rt = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-foreign-")), "runs.db"), config: CONFIG });
  opened.push(rt);
  return rt;
}

beforeEach(() => {
  effects.length = 0;
});
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

const decision = (a: { action_id: string; args_hash: string }, extra: Record<string, unknown> = {}) =>
  ({ action_id: a.action_id, args_hash: a.args_hash, decision: "approve" as const, ...extra });

describe("createReactAgent with a tool interrupting in the HITL shape", () => {
  it("waits for approval with a bound pending action, runs on approve, and traces its model and tool calls", async () => {
    const rt = open();
    const waiting = await rt.submit({ graph: "react_agent", message: "clean up", user: "alice" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(waiting.input_requests).toEqual([]);
    const action = waiting.pending[0]!;
    expect(waiting.pending).toEqual([{
      action_id: expect.stringMatching(/^act_[0-9a-f]{16}$/), tool: "delete_file", args: { path: "a.txt" },
      args_hash: expect.stringMatching(/^[0-9a-f]{64}$/), reason: "Deleting cannot be undone", approvers: ["alice"],
      allowed_decisions: ["approve", "reject"],
    }]);
    // The same action, read again: its id is stable.
    expect((await rt.get(waiting.run_id)).pending[0]!.action_id).toBe(action.action_id);

    await expect(rt.decide(waiting.run_id, [decision(action, { args_hash: "0".repeat(64) })])).rejects.toMatchObject({ code: "ARGS_HASH_MISMATCH" });
    await expect(rt.decide(waiting.run_id, [decision(action, { decision: "edit", edited_args: { path: "b.txt" } })])).rejects.toMatchObject({ code: "DECISION_NOT_ALLOWED" });
    await expect(rt.decide(waiting.run_id, [decision(action, { by: "mallory" })])).rejects.toMatchObject({ code: "APPROVER_NOT_ALLOWED" });
    expect((await rt.get(waiting.run_id)).status).toBe("WAITING_APPROVAL");
    expect(effects).toEqual([]);

    const done = await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, by: "alice" });
    expect(done).toMatchObject({ status: "SUCCEEDED", result: "finished: deleted a.txt" });
    expect(effects).toEqual(["deleted a.txt"]);
    expect(done.usage.model_calls).toBe(3);
    expect(done.usage.tokens).toBeGreaterThan(0);

    const spans = await rt.trace.spans(waiting.run_id);
    expect(spans.filter((s) => s.kind === "model_call").map((s) => [s.name, s.model])).toEqual([
      ["model_turn 1", "scripted"], ["model_turn 2", "scripted"], ["model_turn 3", "scripted"],
    ]);
    expect(spans.filter((s) => s.kind === "model_call").every((s) => (s.inputTokens ?? 0) > 0)).toBe(true);
    // delete_file paused at its interrupt (not a failure) and is recorded once, when it ran after the approval.
    expect(spans.filter((s) => s.kind === "tool_call").map((s) => [s.name, s.status])).toEqual([["execute_tool list_files", "ok"], ["execute_tool delete_file", "ok"]]);
  });

  it("a rejection reaches the tool as the HITL decision with its message", async () => {
    const rt = open();
    const waiting = await rt.submit({ graph: "react_agent", message: "clean up", user: "alice" });
    const action = waiting.pending[0]!;
    const done = await rt.reject(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash, reason: "keep it" });
    expect(done).toMatchObject({ status: "SUCCEEDED", result: "finished: not deleted: keep it" });
    expect(effects).toEqual([]);
  });
});

describe("createAgent with two actions in one HITL interrupt and an agentrt policy", () => {
  it("lists both actions with the policy's approvers; they are decided together, edits judged again", async () => {
    const rt = open();
    const waiting = await rt.submit({ graph: "two_posts", message: "announce the deploy", user: "alice" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(waiting.pending.map((p) => [p.tool, p.args.channel, p.approvers])).toEqual([["post", "#ops", ["role:comms"]], ["post", "#dev", ["role:comms"]]]);
    const [ops, dev] = waiting.pending as [typeof waiting.pending[0], typeof waiting.pending[0]];
    expect(ops.action_id).not.toBe(dev.action_id);
    const comms = { by: "carol", roles: ["comms"] };

    await expect(rt.decide(waiting.run_id, [decision(ops, comms)])).rejects.toMatchObject({ code: "BAD_INPUT", message: expect.stringContaining("decide all of them") });
    await expect(rt.decide(waiting.run_id, [decision(ops), decision(dev)])).rejects.toMatchObject({ code: "APPROVER_NOT_ALLOWED" });
    const toAll = { decision: "edit", edited_args: { channel: "#all", text: "deploy done" }, ...comms };
    await expect(rt.decide(waiting.run_id, [decision(ops, toAll), decision(dev, comms)])).rejects.toMatchObject({ code: "EDIT_ARGS_INVALID", message: expect.stringContaining("nobody posts to #all") });
    expect((await rt.get(waiting.run_id)).status).toBe("WAITING_APPROVAL");
    expect(effects).toEqual([]);

    const edited = { decision: "edit", edited_args: { channel: "#ops", text: "deploy v2 done" }, ...comms };
    const done = await rt.decide(waiting.run_id, [decision(dev, comms), decision(ops, edited)]);
    expect(done.status).toBe("SUCCEEDED");
    expect(effects).toEqual(["posted deploy v2 done to #ops", "posted deploy done to #dev"]);
  });

  it("one rejection sends the model back with the message, and the other approved call is dropped, as the middleware does", async () => {
    const rt = open();
    const waiting = await rt.submit({ graph: "two_posts", message: "announce the deploy", user: "alice" });
    const [ops, dev] = waiting.pending as [typeof waiting.pending[0], typeof waiting.pending[0]];
    const comms = { by: "carol", roles: ["comms"] };
    const done = await rt.decide(waiting.run_id, [decision(ops, comms), decision(dev, { ...comms, decision: "reject", comment: "not #dev" })]);
    expect(done).toMatchObject({ status: "SUCCEEDED", result: "results: not #dev" });
    expect(effects).toEqual([]);
  });
});
