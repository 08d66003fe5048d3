// A resume body decides each pending action at most once: two decisions for one action (a list naming it twice,
// or a map whose entry names another interrupt's action) are refused with 422 and the run keeps waiting, instead
// of the last decision silently winning.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { graphEntry, ROLLBACK_INPUT, testServerForFile, type Approval } from "./harness.js";

const twoRollbacks = `${fileURLToPath(new URL("../fixtures/two-approvals/two_rollbacks.ts", import.meta.url))}:graph`;
const ctx = testServerForFile({}, { ops_rollback: graphEntry("ops_rollback"), two_rollbacks: twoRollbacks });

async function post(path: string, body: unknown) {
  const response = await fetch(`${ctx.server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A thread whose run waits for approval, with its interrupts (id + pending action). */
async function waiting(graph: string, input: unknown) {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const values = (await post(`/threads/${threadId}/runs/wait`, { assistant_id: graph, input })).body;
  const interrupts = values.__interrupt__ as { id: string; value: Approval }[];
  const runs = (await (await fetch(`${ctx.server.url}/threads/${threadId}/runs`)).json()) as { run_id: string }[];
  return { threadId, runId: runs[0]!.run_id, interrupts };
}

async function stillWaiting(runId: string, pending: number): Promise<void> {
  const run = (await (await fetch(`${ctx.server.url}/agentrt/runs/${runId}`)).json()) as { status: string };
  expect(run.status).toBe("WAITING_APPROVAL");
  const approvals = (await (await fetch(`${ctx.server.url}/agentrt/runs/${runId}/approvals`)).json()) as unknown[];
  expect(approvals).toHaveLength(pending);
}

describe("two decisions for one action in one resume", () => {
  it("a list that approves and rejects the same action is refused (422), the run keeps waiting", async () => {
    const { threadId, runId, interrupts } = await waiting("ops_rollback", ROLLBACK_INPUT);
    const action = interrupts[0]!.value;
    const decision = { action_id: action.action_id, args_hash: action.args_hash };
    const refused = await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: "ops_rollback",
      command: { resume: [{ ...decision, decision: "approve" }, { ...decision, decision: "reject" }] },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("BAD_INPUT");
    expect(refused.body.message).toMatch(new RegExp(`${action.action_id}.*more than once`));
    await stillWaiting(runId, 1);
    // One decision still goes through.
    const approved = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "ops_rollback", command: { resume: { ...decision, decision: "approve" } } });
    expect(approved.status).toBe(200);
    expect(approved.body.__interrupt__).toBeUndefined();
  });

  it("the same decision twice is refused too", async () => {
    // two_rollbacks asks again on a fresh thread (ops_rollback's payments deploy was rolled back above).
    const { threadId, runId, interrupts } = await waiting("two_rollbacks", { messages: [{ role: "user", content: "roll back" }] });
    const action = interrupts[0]!.value;
    const decision = { action_id: action.action_id, args_hash: action.args_hash, decision: "approve" };
    expect((await post(`/threads/${threadId}/runs`, { assistant_id: "two_rollbacks", command: { resume: [decision, decision] } })).status).toBe(422);
    await stillWaiting(runId, 2);
  });

  it("a map keyed by interrupt id whose entry names another interrupt's action is refused", async () => {
    const { threadId, runId, interrupts } = await waiting("two_rollbacks", { messages: [{ role: "user", content: "roll back" }] });
    expect(interrupts).toHaveLength(2);
    const [first, second] = interrupts as [{ id: string; value: Approval }, { id: string; value: Approval }];
    const refused = await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: "two_rollbacks",
      command: {
        resume: {
          [first.id]: { decision: "approve", args_hash: second.value.args_hash, action_id: second.value.action_id },
          [second.id]: { decision: "reject", args_hash: second.value.args_hash },
        },
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe("BAD_INPUT");
    await stillWaiting(runId, 2);
  });
});
