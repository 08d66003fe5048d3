// With several API keys, cancelling a run (the cancel route, multitask_strategy interrupt, new input superseding a
// waiting run, deleting its thread, cancel on disconnect) is authorized like a decision on it: its owner, an approver of its pending actions, or role
// admin. Anyone else gets 403 APPROVER_NOT_ALLOWED and the run goes on waiting, untouched; on a thread that is not
// theirs, a run or a delete is refused before that as any other act on it is (403 NOT_OWNER, ownership.test.ts).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { graphEntry, ROLLBACK_INPUT, testServerForFile } from "./harness.js";

const twoRollbacks = `${fileURLToPath(new URL("../fixtures/two-approvals/two_rollbacks.ts", import.meta.url))}:graph`;
const KEYS = {
  alice: "key-alice-123",
  bob: "key-bob-1234",
  carol: "key-carol-123", // role sre: an approver of two_rollbacks' actions, not of ops_rollback's
  root: "key-root-1234", // role admin
};
const ctx = testServerForFile(
  { apiKey: `alice:${KEYS.alice},bob:${KEYS.bob},carol+sre:${KEYS.carol},root+admin:${KEYS.root}` },
  { ops_rollback: graphEntry("ops_rollback"), two_rollbacks: twoRollbacks },
);

type Who = keyof typeof KEYS;

async function call(who: Who, path: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${ctx.server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { "content-type": "application/json", "x-api-key": KEYS[who] },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text === "" ? null : JSON.parse(text)) as Record<string, unknown> & unknown[] };
}

/** A thread of `who` with a run waiting for approval on it. */
async function waitingRun(who: Who, graph = "ops_rollback"): Promise<{ threadId: string; runId: string }> {
  const thread = await call(who, "/threads", { body: {} });
  const threadId = thread.body.thread_id as string;
  const input = graph === "ops_rollback" ? ROLLBACK_INPUT : { messages: [{ role: "user", content: "roll back" }] };
  const waited = await call(who, `/threads/${threadId}/runs/wait`, { body: { assistant_id: graph, input } });
  expect(waited.status).toBe(200);
  const [run] = (await call(who, `/threads/${threadId}/runs`)).body as { run_id: string }[];
  return { threadId, runId: run!.run_id };
}

const statusOf = async (runId: string) => (await call("root", `/agentrt/runs/${runId}`)).body.status;

describe("who may cancel a run", () => {
  it("refuses bob's cancel of alice's waiting run (403) and leaves it waiting", async () => {
    const { threadId, runId } = await waitingRun("alice");
    const refused = await call("bob", `/threads/${threadId}/runs/${runId}/cancel`, { body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("APPROVER_NOT_ALLOWED");
    expect(refused.body.message).toMatch(/bob may not cancel run/);
    expect(await statusOf(runId)).toBe("WAITING_APPROVAL");
    // Its pending action is still there to be decided.
    expect((await call("alice", `/agentrt/runs/${runId}/approvals`)).body).toHaveLength(1);
  });

  it("refuses bob's multitask interrupt on alice's thread (403): her run untouched, no run of bob's stored", async () => {
    const { threadId, runId } = await waitingRun("alice");
    const refused = await call("bob", `/threads/${threadId}/runs/wait`, {
      body: { assistant_id: "ops_rollback", input: ROLLBACK_INPUT, multitask_strategy: "interrupt" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("NOT_OWNER");
    expect(await statusOf(runId)).toBe("WAITING_APPROVAL");
    expect(((await call("alice", `/threads/${threadId}/runs`)).body as { run_id: string }[]).map((r) => r.run_id)).toEqual([runId]);
  });

  it("refuses bob's new input on alice's thread while her run waits (it would supersede it); hers supersedes it", async () => {
    const { threadId, runId } = await waitingRun("alice");
    const refused = await call("bob", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "ops_rollback", input: ROLLBACK_INPUT } });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("NOT_OWNER");
    expect(await statusOf(runId)).toBe("WAITING_APPROVAL");
    expect(((await call("alice", `/threads/${threadId}/runs`)).body as { run_id: string }[]).map((r) => r.run_id)).toEqual([runId]);
    const hers = await call("alice", `/threads/${threadId}/runs/wait`, { body: { assistant_id: "ops_rollback", input: ROLLBACK_INPUT } });
    expect(hers.status).toBe(200);
    expect((await call("root", `/agentrt/runs/${runId}`)).body).toMatchObject({ status: "CANCELED", error: { message: expect.stringMatching(/^canceled by alice: superseded by new input/) } });
  });

  it("refuses bob's delete of alice's thread while her run waits (it would cancel it)", async () => {
    const { threadId, runId } = await waitingRun("alice");
    const refused = await call("bob", `/threads/${threadId}`, { method: "DELETE" });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("NOT_OWNER");
    expect(await statusOf(runId)).toBe("WAITING_APPROVAL");
    expect((await call("alice", `/threads/${threadId}`)).status).toBe(200);
  });

  it("refuses bob's join of alice's run with cancel_on_disconnect before anything is streamed", async () => {
    const { threadId, runId } = await waitingRun("alice");
    const refused = await call("bob", `/threads/${threadId}/runs/${runId}/join?cancel_on_disconnect=true`);
    expect(refused.status).toBe(403);
    expect(await statusOf(runId)).toBe("WAITING_APPROVAL");
  });

  it("lets the owner cancel her run", async () => {
    const { threadId, runId } = await waitingRun("alice");
    expect((await call("alice", `/threads/${threadId}/runs/${runId}/cancel?wait=true`, { body: {} })).status).toBe(202);
    expect(await statusOf(runId)).toBe("CANCELED");
  });

  it("lets role admin cancel anyone's run and interrupt it with a run of its own", async () => {
    const first = await waitingRun("alice");
    expect((await call("root", `/threads/${first.threadId}/runs/${first.runId}/cancel?wait=true`, { body: {} })).status).toBe(202);
    expect(await statusOf(first.runId)).toBe("CANCELED");
    const second = await waitingRun("alice");
    const interrupted = await call("root", `/threads/${second.threadId}/runs`, {
      body: { assistant_id: "ops_rollback", input: ROLLBACK_INPUT, multitask_strategy: "interrupt" },
    });
    expect(interrupted.status).toBe(200);
    expect(await statusOf(second.runId)).toBe("CANCELED");
  });

  it("lets an approver of every pending action cancel (carol, role sre), but not a run she may not decide", async () => {
    const sre = await waitingRun("alice", "two_rollbacks");
    expect((await call("alice", `/agentrt/runs/${sre.runId}/approvals`)).body).toHaveLength(2);
    expect((await call("bob", `/threads/${sre.threadId}/runs/${sre.runId}/cancel`, { body: {} })).status).toBe(403);
    expect((await call("carol", `/threads/${sre.threadId}/runs/${sre.runId}/cancel?wait=true`, { body: {} })).status).toBe(202);
    expect(await statusOf(sre.runId)).toBe("CANCELED");
    const ops = await waitingRun("alice");
    expect((await call("carol", `/threads/${ops.threadId}/runs/${ops.runId}/cancel`, { body: {} })).status).toBe(403);
    expect(await statusOf(ops.runId)).toBe("WAITING_APPROVAL");
  });
});
