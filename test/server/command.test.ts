// LangGraph's `command.goto` / `command.update` on a run waiting for approval, over HTTP (and the SDK client):
// agent-chat-ui's "Mark as Resolved" (`goto: "__end__"`) ends the run without performing the pending rollback, is
// recorded with its decider, and a later approval is refused; an update applies state and the run keeps waiting;
// someone who may not decide the action may send neither; a goto to the tool node cannot run the rollback unapproved.
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeInternals } from "../../src/runtime/internals.js";
import type { AgentServer } from "../../src/server/server.js";
import { openWorld } from "../../src/testing/index.js";
import { ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

const KEYS = { alice: "key-alice-123", bob: "key-bob-1234" };
type Who = keyof typeof KEYS;
interface Msg { type: string; content: string }

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  const shared = {} as { server: AgentServer; db: string; alice: Client };
  beforeAll(async () => {
    const started = await startTestServer({ db: db(), apiKey: `alice:${KEYS.alice},bob:${KEYS.bob}` });
    Object.assign(shared, { server: started.server, db: started.project.db, alice: new Client({ apiUrl: started.server.url, apiKey: KEYS.alice }) });
  });
  afterAll(async () => {
    await shared.server.close();
  });

  async function call(who: Who, path: string, body?: unknown) {
    const response = await fetch(`${shared.server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", "x-api-key": KEYS[who] },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text === "" ? null : JSON.parse(text)) as Record<string, unknown> };
  }
  const rollbacks = async () => (await openWorld({ path: shared.db }).snapshot()).calls.rollback_deployment ?? 0;
  const runOf = async (runId: string) => (await call("alice", `/agentrt/runs/${runId}`)).body;
  const command = (who: Who, threadId: string, cmd: unknown) =>
    call(who, `/threads/${threadId}/runs/wait`, { assistant_id: "ops_rollback", input: {}, command: cmd });

  /** A thread of alice's whose run waits for the approval of its rollback (alice, its requester, may decide it). */
  async function waitingRun(): Promise<{ threadId: string; runId: string }> {
    await openWorld({ path: shared.db }).reset();
    const threadId = (await shared.alice.threads.create()).thread_id;
    await shared.alice.runs.wait(threadId, "ops_rollback", { input: ROLLBACK_INPUT });
    const [run] = await shared.alice.runs.list(threadId);
    expect(run?.metadata?.agentrt_status).toBe("WAITING_APPROVAL");
    return { threadId, runId: run!.run_id };
  }

  it("goto __end__ ends the run without the rollback, records who decided it, and refuses a later approval", async () => {
    const { threadId, runId } = await waitingRun();
    // As agent-chat-ui sends it: `thread.submit({}, { command: { goto: END } })`.
    const ended = await command("alice", threadId, { goto: "__end__" });
    expect(ended.status).toBe(200);
    expect((await runOf(runId)).status).toBe("SUCCEEDED");
    expect(await rollbacks()).toBe(0);
    const thread = await shared.alice.threads.get(threadId);
    expect(thread.status).toBe("idle");
    const state = await shared.alice.threads.getState(threadId);
    expect(state.tasks.flatMap((t) => t.interrupts)).toEqual([]);
    const events = await runtimeInternals(shared.server.runtime).runs.events(runId);
    expect(events.find((e) => e.from === "WAITING_APPROVAL")).toMatchObject({
      actor: "alice", reason: expect.stringMatching(/^command goto __end__ by alice; pending actions not performed: rollback_deployment \(act_/),
    });

    const approved = await call("alice", `/threads/${threadId}/runs/wait`, { assistant_id: "ops_rollback", command: { resume: { decisions: [{ type: "approve" }] } } });
    expect(approved.status).toBe(409);
    expect(approved.body.message).not.toMatch(/\n/);
    const pending = (await runOf(runId)).pending as unknown[];
    expect(pending).toEqual([]);
    expect(await rollbacks()).toBe(0);
  });

  it("through the SDK client, goto __end__ then a second goto: the first ends the run, the second is a 409", async () => {
    const { threadId, runId } = await waitingRun();
    await shared.alice.runs.wait(threadId, "ops_rollback", { command: { goto: "__end__" } });
    expect((await runOf(runId)).status).toBe("SUCCEEDED");
    const again = await command("alice", threadId, { goto: "__end__" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("THREAD_NOT_INTERRUPTED");
    expect(await rollbacks()).toBe(0);
  });

  it("update applies state; the run keeps waiting on the same action, which an approval then runs once", async () => {
    const { threadId, runId } = await waitingRun();
    const before = (await runOf(runId)).pending as { action_id: string }[];
    const updated = await command("alice", threadId, { update: { messages: [{ type: "human", content: "Note: the change window is open." }] } });
    expect(updated.status).toBe(200);
    const state = await shared.alice.threads.getState<{ messages: Msg[] }>(threadId);
    expect(state.values.messages.map((m) => m.content)).toContain("Note: the change window is open.");
    const run = await runOf(runId);
    expect(run.status).toBe("WAITING_APPROVAL");
    expect((run.pending as { action_id: string }[]).map((p) => p.action_id)).toEqual(before.map((p) => p.action_id));
    expect(await rollbacks()).toBe(0);
    await shared.alice.runs.wait(threadId, "ops_rollback", { command: { resume: { decisions: [{ type: "approve" }] } } });
    expect(await rollbacks()).toBe(1);
  });

  it("refuses goto and update from bob, who may not decide the rollback (403); nothing changes", async () => {
    const { threadId, runId } = await waitingRun();
    const before = await shared.alice.threads.getState(threadId);
    for (const cmd of [{ goto: "__end__" }, { update: { messages: [{ type: "human", content: "skip it" }] } }, { goto: "tools" }]) {
      const refused = await command("bob", threadId, cmd);
      expect(refused.status).toBe(403);
      // bob neither owns alice's thread nor may decide for it: the ownership rule refuses him first.
      expect(refused.body.code).toBe("NOT_OWNER");
    }
    expect((await runOf(runId)).status).toBe("WAITING_APPROVAL");
    expect((await shared.alice.threads.getState(threadId)).checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    expect(await rollbacks()).toBe(0);
  });

  it("goto to the tool node cannot run the rollback without its approval", async () => {
    const { threadId, runId } = await waitingRun();
    const before = (await runOf(runId)).pending as { action_id: string }[];
    const sent = await command("alice", threadId, { goto: "tools" });
    expect(sent.status).toBe(200);
    expect(await rollbacks()).toBe(0);
    // The paused branch asks again for the same action; the goto'd tool node gets no call and runs nothing.
    const run = await runOf(runId);
    expect(run.status).toBe("WAITING_APPROVAL");
    expect((run.pending as { action_id: string }[]).map((p) => p.action_id)).toEqual(before.map((p) => p.action_id));
    await shared.alice.runs.wait(threadId, "ops_rollback", { command: { resume: { decisions: [{ type: "approve" }] } } });
    expect(await rollbacks()).toBe(1);
    expect((await runOf(runId)).status).toBe("SUCCEEDED");
  });

  it("refuses a malformed command with one line (422)", async () => {
    const { threadId } = await waitingRun();
    for (const cmd of [{ goto: 3 }, { goto: [] }, { goto: { node: "tools", input: {} } }, { update: "x" }, { goto: ["__end__", "model"] }, { goto: "__end__", resume: "yes" }]) {
      const refused = await command("alice", threadId, cmd);
      expect(refused.status, JSON.stringify(cmd)).toBe(422);
      expect(refused.body.message).not.toMatch(/\n/);
    }
    expect(await rollbacks()).toBe(0);
  });

  it("refuses goto or update without a thread (a stateless run) with 422, starting nothing", async () => {
    const before = ((await call("alice", "/agentrt/runs")).body as unknown as unknown[]).length;
    for (const cmd of [{ goto: "__end__" }, { update: { messages: [] } }]) {
      const refused = await call("alice", "/runs/wait", { assistant_id: "ops_rollback", input: {}, command: cmd });
      expect(refused.status, JSON.stringify(cmd)).toBe(422);
      expect(refused.body.message).toMatch(/run on its thread/);
    }
    expect(((await call("alice", "/agentrt/runs")).body as unknown as unknown[]).length).toBe(before);
  });
});
