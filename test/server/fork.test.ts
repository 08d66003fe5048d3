// A run from an earlier checkpoint of its thread (what useStream's regenerate and edit-a-message send), through the
// SDK: as LangGraph's server, it runs on a new branch of the thread's history. Side effects done on the old branch
// stay done and recorded (never undone); a destructive call on the new branch needs its own approval and, approved,
// is issued once more on that branch only — and the simulated world counts what it performed.
import type { Client, ThreadState } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerFor } from "../../src/ledger/index.js";
import type { AgentServer } from "../../src/server/server.js";
import { openWorld } from "../../src/testing/index.js";
import { openDatabase } from "../../src/db/index.js";
import { ROLLBACK_INPUT, startTestServer } from "./harness.js";
import { httpCall } from "./http-call.js";

const shared = {} as { server: AgentServer; client: Client; db: string };
beforeAll(async () => {
  const started = await startTestServer();
  Object.assign(shared, { server: started.server, client: started.client, db: started.project.db });
});
afterAll(async () => {
  await shared.server.close();
});

interface Msg { type: string; content: string; id: string; tool_calls?: { name: string }[]; name?: string }
type State = ThreadState<{ messages: Msg[] }>;

const rollbacks = async () => (await openWorld({ path: shared.db }).snapshot()).calls.rollback_deployment ?? 0;
const approveHitl = (threadId: string) => shared.client.runs.wait(threadId, "ops_rollback", { command: { resume: { decisions: [{ type: "approve" }] } } });
const history = async (threadId: string) => (await shared.client.threads.getHistory(threadId, { limit: 500 })) as State[];

/** As useStream's getMessagesMetadata finds it: the parent of the oldest state that shows the message. */
function parentOfFirstSeen(states: readonly State[], messageId: string): string {
  const firstSeen = states.findLast((s) => s.values.messages?.some((m) => m.id === messageId));
  const parent = firstSeen?.parent_checkpoint?.checkpoint_id;
  if (parent == null) throw new Error(`no parent checkpoint before message ${messageId}`);
  return parent;
}

describe("a run from an earlier checkpoint", () => {
  it("regenerates on a new branch: the rollback asks for its own approval and, approved, is issued once more there", async () => {
    const { client } = shared;
    await openWorld({ path: shared.db }).reset();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
    await approveHitl(thread.thread_id);
    expect(await rollbacks()).toBe(1);
    const [first] = await client.runs.list(thread.thread_id);
    const oldHead = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    const askedRollback = oldHead.values.messages.find((m) => m.tool_calls?.some((c) => c.name === "rollback_deployment"))!;
    const before = parentOfFirstSeen(await history(thread.thread_id), askedRollback.id);

    // Regenerate the model turn that asked for the rollback: no input, the checkpoint before it (as useStream sends it).
    const checkpoint = { checkpoint_id: before, checkpoint_ns: "", checkpoint_map: null };
    const regenerated = (await client.runs.wait(thread.thread_id, "ops_rollback", { input: null, checkpoint })) as { __interrupt__?: { value: { tool: string; action_id: string } }[] };
    expect(regenerated.__interrupt__?.map((i) => i.value.tool)).toEqual(["rollback_deployment"]);
    expect(await rollbacks()).toBe(1);
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.map((r) => r.metadata?.agentrt_status)).toEqual(["WAITING_APPROVAL", "SUCCEEDED"]);
    const second = runs[0]!;
    expect(second.run_id).not.toBe(first!.run_id);

    // The new branch starts at that checkpoint: its head descends from it, not from the old branch's head.
    const branchHead = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    const lineage = new Set<string>();
    const all = await history(thread.thread_id);
    for (let at: string | undefined = branchHead.checkpoint.checkpoint_id ?? undefined; at !== undefined;) {
      lineage.add(at);
      at = all.find((s) => s.checkpoint.checkpoint_id === at)?.parent_checkpoint?.checkpoint_id ?? undefined;
    }
    expect(lineage.has(before)).toBe(true);
    expect(lineage.has(oldHead.checkpoint.checkpoint_id!)).toBe(false);
    expect(branchHead.values.messages.filter((m) => m.type === "tool" && m.name === "rollback_deployment")).toHaveLength(0);

    // Approved, it is issued again (a new run: a new ledger key), to a world where the old branch's rollback is still
    // done — nothing undid it — so the platform refuses it: payments already runs rev-184.
    await approveHitl(thread.thread_id);
    expect(await rollbacks()).toBe(1);
    const refused = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(refused.values.messages.at(-1)?.content).toMatch(/not an earlier revision \(current rev-184\)/);
    const oldBranch = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id, oldHead.checkpoint.checkpoint_id!);
    expect(oldBranch.values.messages.map((m) => m.id)).toEqual(oldHead.values.messages.map((m) => m.id));

    // A third branch from the same checkpoint asks once more; approved with an earlier target, the rollback happens
    // again on that branch only, and the world counts both.
    await client.runs.wait(thread.thread_id, "ops_rollback", { input: null, checkpoint });
    const [third] = await client.runs.list(thread.thread_id);
    expect(third!.metadata?.agentrt_status).toBe("WAITING_APPROVAL");
    await client.runs.wait(thread.thread_id, "ops_rollback", {
      command: { resume: { decisions: [{ type: "edit", edited_action: { name: "rollback_deployment", args: { service: "payments", target_revision: "rev-183" } } }] } },
    });
    expect(await rollbacks()).toBe(2);
    const done = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(done.values.messages.filter((m) => m.type === "tool" && m.name === "rollback_deployment")).toHaveLength(1);
    expect(done.values.messages.at(-1)?.content).toMatch(/Rolled back to rev-183/);

    const db = openDatabase(shared.db);
    try {
      const ledger = ledgerFor(db);
      const calls = [];
      for (const run of [first!, second, third!]) calls.push(...(await ledger.list(run.run_id)).filter((e) => e.tool === "rollback_deployment"));
      expect(calls.map((e) => e.status)).toEqual(["done", "failed", "done"]);
      expect(new Set(calls.map((e) => e.key)).size).toBe(3);
    } finally {
      db.close();
    }
  });

  it("runs new input from an earlier checkpoint (edit a message): the edited question replaces the old one on the new branch", async () => {
    const { client } = shared;
    await openWorld({ path: shared.db }).reset();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops_rollback", { input: { messages: [{ role: "user", content: "Is the checkout deploy healthy?" }] } });
    await client.runs.wait(thread.thread_id, "ops_rollback", { input: { messages: [{ role: "user", content: "And the search deploy?" }] } });
    const head = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    const second = head.values.messages.filter((m) => m.type === "human")[1]!;
    const before = parentOfFirstSeen(await history(thread.thread_id), second.id);

    await client.runs.wait(thread.thread_id, "ops_rollback", { input: { messages: [{ type: "human", content: "And the payments deploy?", id: second.id }] }, checkpointId: before });
    const edited = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(edited.values.messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual(["Is the checkout deploy healthy?", "And the payments deploy?"]);
    expect(await rollbacks()).toBe(0);
  });

  it("refuses a checkpoint the thread does not have, and a resume from an earlier checkpoint; nothing is stored", async () => {
    const { client } = shared;
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops_rollback", { input: { messages: [{ role: "user", content: "Is the search deploy healthy?" }] } });
    const states = await history(thread.thread_id);
    const count = states.length;
    const unknown = await httpCall(shared.server.url, "POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: "ops_rollback", input: null, checkpoint_id: "1f000000-0000-6000-8000-000000000000" });
    expect(unknown.status).toBe(422);
    const resume = await httpCall(shared.server.url, "POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: "ops_rollback", command: { resume: { decisions: [{ type: "approve" }] } }, checkpoint_id: states.at(-1)!.checkpoint.checkpoint_id });
    expect(resume.status).toBe(422);
    expect(await history(thread.thread_id)).toHaveLength(count);
    expect(await client.runs.list(thread.thread_id)).toHaveLength(1);
  });
});
