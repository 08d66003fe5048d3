// New input on a thread whose run waits for an answer, through the SDK as a chat UI sends it: as LangGraph's server,
// the waiting run does not hold the thread — it is superseded (CANCELED, by the caller, its pending actions named as
// not performed) and the new run goes on from the thread's state; a decision for the superseded run is refused
// afterwards and runs nothing; `if_waiting: "reject"` keeps the stricter hold (409).
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { openWorld } from "../../src/testing/index.js";
import { graphEntry, ROLLBACK_INPUT, startTestServer } from "./harness.js";
import { httpCall } from "./http-call.js";

const shared = {} as { server: AgentServer; client: Client; db: string };
beforeAll(async () => {
  const started = await startTestServer({}, { ops_rollback: graphEntry("ops_rollback"), order_delay: graphEntry("order_delay") });
  Object.assign(shared, { server: started.server, client: started.client, db: started.project.db });
});
afterAll(async () => {
  await shared.server.close();
});

interface Pending { action_id: string; args_hash: string; tool: string }
interface RunView { status: string; pending: Pending[]; error: { code: string; message: string } | null }

const rollbacks = async () => (await openWorld({ path: shared.db }).snapshot()).calls.rollback_deployment ?? 0;
const runView = async (runId: string) => (await httpCall(shared.server.url, "GET", `/agentrt/runs/${runId}`)).json as unknown as RunView;
const interruptsOf = async (threadId: string) =>
  (await shared.client.threads.getState(threadId)).tasks.flatMap((t) => t.interrupts) as { id: string; value: Pending }[];
const NEW_MESSAGE = { messages: [{ role: "user", content: "Go ahead and roll it back." }] };

/** A thread whose ops_rollback run waits for approval of its rollback: the run and its pending action. */
async function waitingThread(): Promise<{ threadId: string; runId: string; action: Pending; interruptId: string }> {
  await openWorld({ path: shared.db }).reset();
  const thread = await shared.client.threads.create();
  const run = await shared.client.runs.create(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
  await shared.client.runs.join(thread.thread_id, run.run_id);
  const view = await runView(run.run_id);
  expect(view.status).toBe("WAITING_APPROVAL");
  const [interrupt] = await interruptsOf(thread.thread_id);
  return { threadId: thread.thread_id, runId: run.run_id, action: view.pending[0]!, interruptId: interrupt!.id };
}

describe("new input on a thread whose run waits", () => {
  it("supersedes the waiting run: streamed new input goes on from the thread's state and asks again", async () => {
    const old = await waitingThread();
    const events: string[] = [];
    for await (const part of shared.client.runs.stream(old.threadId, "ops_rollback", { input: NEW_MESSAGE, streamMode: ["values"] })) events.push(part.event);
    expect(events).not.toContain("error");

    const superseded = await runView(old.runId);
    expect(superseded.status).toBe("CANCELED");
    // By whom (no keys: the anonymous caller), why, and what of it did not happen.
    expect(superseded.error?.message).toBe(`canceled by anonymous: superseded by new input on its thread; pending actions not performed: rollback_deployment (${old.action.action_id})`);
    expect((await shared.client.runs.get(old.threadId, old.runId)).status).toBe("interrupted");

    // The new run continued the conversation: both questions, the old unanswered call, then a call of its own.
    const runs = await shared.client.runs.list(old.threadId);
    expect(runs.map((r) => r.metadata?.agentrt_status)).toEqual(["WAITING_APPROVAL", "CANCELED"]);
    const messages = (await shared.client.threads.getState<{ messages: { type: string; content: unknown }[] }>(old.threadId)).values.messages;
    expect(messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual([ROLLBACK_INPUT.messages[0]!.content, NEW_MESSAGE.messages[0]!.content]);
    const [fresh] = await interruptsOf(old.threadId);
    expect(fresh!.id).not.toBe(old.interruptId);
    expect(fresh!.value.action_id).not.toBe(old.action.action_id);
    expect(fresh!.value.tool).toBe("rollback_deployment");
    expect(await rollbacks()).toBe(0);
  });

  it("refuses a decision for the superseded run afterwards; nothing runs until the new run's own approval", async () => {
    const old = await waitingThread();
    const next = await shared.client.runs.create(old.threadId, "ops_rollback", { input: NEW_MESSAGE });
    await shared.client.runs.join(old.threadId, next.run_id);

    const late = await httpCall(shared.server.url, "POST", `/agentrt/runs/${old.runId}/approve`, { action_id: old.action.action_id, args_hash: old.action.args_hash });
    expect(late.status).toBe(409);
    expect(late.json.code).toBe("RUN_NOT_WAITING");
    // Keyed by the superseded interrupt: it is not the thread's, so it binds to no action.
    const keyed = await httpCall(shared.server.url, "POST", `/threads/${old.threadId}/runs/wait`, {
      assistant_id: "ops_rollback", command: { resume: { [old.interruptId]: { decisions: [{ type: "approve" }] } } },
    });
    expect(keyed.status).toBe(422);
    // agentrt's dialect, naming the superseded action: unknown to the run that waits now.
    const named = await httpCall(shared.server.url, "POST", `/threads/${old.threadId}/runs/wait`, {
      assistant_id: "ops_rollback", command: { resume: { action_id: old.action.action_id, args_hash: old.action.args_hash, decision: "approve" } },
    });
    expect(named.status).toBe(409);
    expect(named.json.code).toBe("UNKNOWN_ACTION");
    expect(await rollbacks()).toBe(0);
    expect((await runView(next.run_id)).status).toBe("WAITING_APPROVAL");

    const [fresh] = await interruptsOf(old.threadId);
    await shared.client.runs.wait(old.threadId, "ops_rollback", { command: { resume: { [fresh!.id]: { decisions: [{ type: "approve" }] } } } });
    expect((await runView(next.run_id)).status).toBe("SUCCEEDED");
    expect(await rollbacks()).toBe(1);
  });

  it("runs.wait supersedes too, and a run waiting for input is superseded with its question left unanswered", async () => {
    const thread = await shared.client.threads.create();
    const ask = { messages: [{ role: "user", content: "Is my order late?" }] };
    await shared.client.runs.wait(thread.thread_id, "order_delay", { input: ask });
    const [asking] = await shared.client.runs.list(thread.thread_id);
    expect(asking!.metadata?.agentrt_status).toBe("WAITING_INPUT");
    await shared.client.runs.wait(thread.thread_id, "order_delay", { input: ask });
    const view = await runView(asking!.run_id);
    expect(view.status).toBe("CANCELED");
    expect(view.error?.message).toMatch(/^canceled by anonymous: superseded by new input on its thread; its question left unanswered/);
  });

  it("if_waiting reject keeps the stricter hold: 409 THREAD_BUSY, the run still waits, no run stored", async () => {
    const old = await waitingThread();
    for (const path of ["runs", "runs/stream", "runs/wait"]) {
      const held = await httpCall(shared.server.url, "POST", `/threads/${old.threadId}/${path}`, { assistant_id: "ops_rollback", input: NEW_MESSAGE, if_waiting: "reject" });
      expect(held.status).toBe(409);
      expect(held.json.code).toBe("THREAD_BUSY");
    }
    expect((await runView(old.runId)).status).toBe("WAITING_APPROVAL");
    expect(await shared.client.runs.list(old.threadId)).toHaveLength(1);
    const bad = await httpCall(shared.server.url, "POST", `/threads/${old.threadId}/runs`, { assistant_id: "ops_rollback", input: NEW_MESSAGE, if_waiting: "hold" });
    expect(bad.status).toBe(422);
  });
});
