// LangChain's HITL dialect over HTTP with the official SDK client: the interrupt carries action_requests and
// review_configs, `{ decisions }` resumes it (approve, edit, reject), and a malformed list leaves the run waiting.
import type { Client } from "@langchain/langgraph-sdk";
import { userFacingInterruptsFromThreadTasks } from "@langchain/langgraph-sdk/ui";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { openWorld } from "../../src/testing/index.js";
import { agentChatUiShowsButtons } from "../helpers/agent-chat-ui.js";
import { httpCall } from "./http-call.js";
import { ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  const shared = {} as { server: AgentServer; client: Client; db: string };
  beforeAll(async () => {
    const started = await startTestServer({ db: db() });
    Object.assign(shared, { server: started.server, client: started.client, db: started.project.db });
  });
  afterAll(async () => {
    await shared.server.close();
  });

  interface Interrupted {
    threadId: string;
    interruptId: string;
    value: Record<string, unknown>;
  }

  /** A fresh ops_rollback thread paused on its rollback, with its interrupt as the SDK reads it. */
  async function pausedThread(): Promise<Interrupted> {
    const { client } = shared;
    await openWorld({ path: shared.db }).reset();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT });
    const state = await client.threads.getState(thread.thread_id);
    const interrupt = state.tasks.flatMap((t) => t.interrupts)[0] as { id: string; value: Record<string, unknown> };
    return { threadId: thread.thread_id, interruptId: interrupt.id, value: interrupt.value };
  }

  const rollbacks = async () => (await openWorld({ path: shared.db }).snapshot()).calls.rollback_deployment ?? 0;
  const resume = (threadId: string, value: unknown) =>
    httpCall(shared.server.url, "POST", `/threads/${threadId}/runs/wait`, { assistant_id: "ops_rollback", command: { resume: value } });
  const status = async (threadId: string) => (await shared.client.threads.get(threadId)).status;

  describe("LangChain HITL over HTTP", () => {
    it("an approval interrupt carries action_requests and review_configs beside action_id and args_hash", async () => {
      const { value } = await pausedThread();
      expect(value).toMatchObject({
        action_id: expect.stringMatching(/^act_/), args_hash: expect.stringMatching(/^[0-9a-f]{64}$/), tool: "rollback_deployment",
        action_requests: [{ name: "rollback_deployment", args: value.args, description: expect.any(String) }],
        review_configs: [{ action_name: "rollback_deployment", allowed_decisions: ["approve", "edit", "reject"] }],
      });
    });

    it("read as useStream reads it (the SDK's normalizer), the interrupt gets agent-chat-ui's approval buttons", async () => {
      const { threadId } = await pausedThread();
      const state = await shared.client.threads.getState(threadId);
      const interrupts = userFacingInterruptsFromThreadTasks(state.tasks.flatMap((t) => t.interrupts)) ?? [];
      expect(interrupts).toHaveLength(1);
      expect(agentChatUiShowsButtons(interrupts[0])).toBe(true);
      expect((interrupts[0]!.value as { reviewConfigs: unknown[] }).reviewConfigs).toEqual([expect.objectContaining({
        actionName: "rollback_deployment", action_name: "rollback_deployment", allowedDecisions: ["approve", "edit", "reject"],
      })]);
    });

    it("resumes with { decisions: [{ type: 'approve' }] } through the SDK", async () => {
      const { threadId } = await pausedThread();
      await shared.client.runs.wait(threadId, "ops_rollback", { command: { resume: { decisions: [{ type: "approve" }] } } });
      expect(await status(threadId)).toBe("idle");
      expect(await rollbacks()).toBe(1);
    });

    it("an edit runs the call with the edited arguments; one the schema refuses is a 422 and the run keeps waiting", async () => {
      const { threadId, interruptId, value } = await pausedThread();
      const args = value.args as Record<string, unknown>;
      const refused = await resume(threadId, { decisions: [{ type: "edit", edited_action: { name: "rollback_deployment", args: { ...args, target_revision: "" } } }] });
      expect(refused.status).toBe(422);
      expect(refused.json.code).toBe("EDIT_ARGS_INVALID");
      expect(await status(threadId)).toBe("interrupted");
      expect(await rollbacks()).toBe(0);

      // Keyed by its interrupt id, camelCase as LangChain.js writes it.
      const edited = await resume(threadId, { [interruptId]: { decisions: [{ type: "edit", editedAction: { name: "rollback_deployment", args: { ...args } } }] } });
      expect(edited.status).toBe(200);
      expect(await rollbacks()).toBe(1);
    });

    it("refuses a decision list of the wrong length or type, and an edit of another tool; nothing runs", async () => {
      const { threadId, value } = await pausedThread();
      for (const bad of [
        { decisions: [] },
        { decisions: [{ type: "approve" }, { type: "approve" }] },
        { decisions: [{ type: "respond", message: "no" }] },
        { decisions: [{ type: "edit", edited_action: { name: "delete_everything", args: value.args } }] },
      ]) {
        const answer = await resume(threadId, bad);
        expect(answer.status, JSON.stringify(bad)).toBe(422);
        expect(answer.json.code).toBe("BAD_INPUT");
      }
      expect(await status(threadId)).toBe("interrupted");
      expect(await rollbacks()).toBe(0);
      await resume(threadId, { decisions: [{ type: "reject", message: "not now" }] });
      expect(await rollbacks()).toBe(0);
      expect(await status(threadId)).toBe("idle");
    });
  });
});
