// email_assistant, a foreign agent (LangChain createAgent + humanInTheLoopMiddleware), served by agentrt and driven
// with the official SDK client: its interrupt is LangChain's own (actionRequests/reviewConfigs), `{ decisions }`
// resumes it, a malformed list is a 422 that leaves it waiting, and agentrt's approvals API binds the same action.
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { openWorld } from "../../src/testing/index.js";
import { httpCall } from "./http-call.js";
import { graphEntry, startTestServer } from "./harness.js";

const shared = {} as { server: AgentServer; client: Client; db: string };
beforeAll(async () => {
  const started = await startTestServer({}, { email_assistant: graphEntry("email_assistant") });
  Object.assign(shared, { server: started.server, client: started.client, db: started.project.db });
});
afterAll(async () => {
  await shared.server.close();
});

const INPUT = { messages: [{ role: "user", content: "Email alice@example.com that the report is ready" }] };
const ARGS = { to: "alice@example.com", subject: "Update", body: "Hello, the report is ready" };

const sent = async () => Object.values((await openWorld({ path: shared.db }).snapshot()).systems.messaging ?? {}) as { to: string }[];
const status = async (threadId: string) => (await shared.client.threads.get(threadId)).status;
const resume = (threadId: string, value: unknown) =>
  httpCall(shared.server.url, "POST", `/threads/${threadId}/runs/wait`, { assistant_id: "email_assistant", command: { resume: value } });

async function pausedThread(): Promise<{ threadId: string; value: Record<string, unknown> }> {
  await openWorld({ path: shared.db }).reset();
  const thread = await shared.client.threads.create();
  await shared.client.runs.wait(thread.thread_id, "email_assistant", { input: INPUT });
  const state = await shared.client.threads.getState(thread.thread_id);
  const interrupt = state.tasks.flatMap((t) => t.interrupts)[0] as { value: Record<string, unknown> };
  return { threadId: thread.thread_id, value: interrupt.value };
}

describe("a foreign createAgent graph over HTTP", () => {
  it("interrupts in LangChain's own shape; { decisions } with an edit sends to the edited recipient", async () => {
    const { threadId, value } = await pausedThread();
    expect(value).toEqual({
      actionRequests: [{ name: "send_email", args: ARGS, description: "An email is sent immediately and cannot be unsent" }],
      reviewConfigs: [{ actionName: "send_email", allowedDecisions: ["approve", "edit", "reject"], argsSchema: expect.any(Object) }],
    });
    expect(await status(threadId)).toBe("interrupted");

    for (const bad of [{ decisions: [] }, { decisions: [{ type: "approve" }, { type: "approve" }] }, { decisions: [{ type: "respond" }] }]) {
      const refused = await resume(threadId, bad);
      expect(refused.status, JSON.stringify(bad)).toBe(422);
    }
    const badEdit = await resume(threadId, { decisions: [{ type: "edit", edited_action: { name: "send_email", args: { ...ARGS, to: "nobody" } } }] });
    expect(badEdit.status).toBe(422);
    expect(badEdit.json.code).toBe("EDIT_ARGS_INVALID");
    expect(await status(threadId)).toBe("interrupted");
    expect(await sent()).toEqual([]);

    await shared.client.runs.wait(threadId, "email_assistant", {
      command: { resume: { decisions: [{ type: "edit", edited_action: { name: "send_email", args: { ...ARGS, to: "bob@example.com" } } }] } },
    });
    expect(await status(threadId)).toBe("idle");
    expect((await sent()).map((m) => m.to)).toEqual(["bob@example.com"]);
    const last = (await shared.client.threads.getState<{ messages: { content: string }[] }>(threadId)).values.messages.at(-1);
    expect(last?.content).toBe("Done: Sent msg_0001 to bob@example.com.");
  });

  it("agentrt's approvals API lists the action with action_id and args_hash and approves it bound to them", async () => {
    const { threadId } = await pausedThread();
    const runs = await httpCall(shared.server.url, "GET", "/agentrt/runs?status=WAITING_APPROVAL");
    const run = (runs.json as unknown as { run_id: string; thread_id: string }[]).find((r) => r.thread_id === threadId)!;
    const listed = await httpCall(shared.server.url, "GET", `/agentrt/runs/${run.run_id}/approvals`);
    const actions = listed.json as unknown as { action_id: string; args_hash: string; tool: string; approvers: string[] }[];
    expect(actions).toEqual([expect.objectContaining({ tool: "send_email", args: ARGS, action_id: expect.stringMatching(/^act_/), approvers: ["anonymous"] })]);
    expect(actions[0]).not.toHaveProperty("foreign");
    const action = actions[0]!;

    const stale = await httpCall(shared.server.url, "POST", `/agentrt/runs/${run.run_id}/approve`, { action_id: action.action_id, args_hash: "0".repeat(64) });
    expect(stale.status).toBe(409);
    expect(stale.json.code).toBe("ARGS_HASH_MISMATCH");
    expect(await sent()).toEqual([]);
    const done = await httpCall(shared.server.url, "POST", `/agentrt/runs/${run.run_id}/approve`, { action_id: action.action_id, args_hash: action.args_hash });
    expect(done.status).toBe(200);
    expect((done.json as unknown as { status: string }).status).toBe("SUCCEEDED");
    expect((await sent()).map((m) => m.to)).toEqual(["alice@example.com"]);
    const trace = (await httpCall(shared.server.url, "GET", `/agentrt/runs/${run.run_id}/trace`)).json as unknown as { kind: string; name: string }[];
    expect(trace.filter((s) => s.kind === "model_call" || s.kind === "tool_call").map((s) => s.name)).toEqual(["model_turn 1", "execute_tool send_email", "model_turn 2"]);
  });

  it("a rejection through the SDK reaches the model as the message", async () => {
    const { threadId } = await pausedThread();
    await shared.client.runs.wait(threadId, "email_assistant", { command: { resume: { decisions: [{ type: "reject", message: "not today" }] } } });
    expect(await sent()).toEqual([]);
    const last = (await shared.client.threads.getState<{ messages: { content: string }[] }>(threadId)).values.messages.at(-1);
    expect(last?.content).toBe("I did not send the email: not today");
  });
});
