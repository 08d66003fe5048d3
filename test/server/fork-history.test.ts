// What a run from an earlier checkpoint costs the thread's history, as agent-chat-ui reads it: a regenerate and then
// an edit on the same thread, and the edited message's branch switcher, computed by the SDK's own branching code
// (what useStream runs) over the 10 history entries agent-chat-ui asks for. As on LangGraph's server, a fork's input
// goes in at the checkpoint it names: no copy of that checkpoint is written first, so an edit adds its input
// checkpoint and its steps, and a regenerate (no input) the `fork` checkpoint LangGraph itself writes and its steps.
import type { Client, ThreadState } from "@langchain/langgraph-sdk";
import { getBranchContext, getMessagesMetadataMap } from "@langchain/langgraph-sdk/ui";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { fixtureEntry, serverBackends, startTestServer } from "./harness.js";
import { httpCall } from "./http-call.js";

interface Msg { type: string; content: string; id: string }
type State = ThreadState<{ messages: Msg[] }>;

/** useStream's window: `fetchStateHistory: true` asks for this many entries. */
const WINDOW = 10;

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  const shared = {} as { server: AgentServer; client: Client };
  beforeAll(async () => {
    // A chat graph whose turn is three checkpoints (input, the model's step pending, its answer), as a plain chat's.
    const started = await startTestServer({ db: db() }, { chat: fixtureEntry("chat-graph") });
    Object.assign(shared, { server: started.server, client: started.client });
  });
  afterAll(async () => {
    await shared.server.close();
  });

  /** POST /threads/{id}/history as useStream sends it (newest first). */
  const history = async (threadId: string, limit: number): Promise<State[]> => {
    const answer = await httpCall(shared.server.url, "POST", `/threads/${threadId}/history`, { limit });
    expect(answer.status).toBe(200);
    return answer.json as unknown as State[];
  };
  /** What agent-chat-ui knows of each message of the branch shown: useStream's metadata over the window it fetched. */
  const shown = async (threadId: string) => {
    const window = await history(threadId, WINDOW);
    const branchContext = getBranchContext("", window as never);
    const metadata = getMessagesMetadataMap({
      initialValues: undefined, history: window as never, branchContext,
      getMessages: (values: Record<string, unknown>) => (values.messages ?? []) as Msg[],
    } as never) as { messageId: string; firstSeenState?: State; branch?: string; branchOptions?: string[] }[];
    const head = (branchContext.threadHead as State | undefined)?.values.messages ?? [];
    return { window, head, meta: (id: string) => metadata.find((m) => m.messageId === id)! };
  };
  /** The sources of the checkpoints one run wrote, oldest first. */
  const sourcesOf = (states: readonly State[], runId: string) =>
    states.filter((s) => s.metadata?.run_id === runId).map((s) => s.metadata?.source).reverse();
  const newestRun = async (threadId: string) => (await shared.client.runs.list(threadId, { limit: 1 }))[0]!.run_id;

  it("after a regenerate and an edit, the edited message shows its branch switcher in a 10-entry window", async () => {
    const { client } = shared;
    const threadId = (await client.threads.create()).thread_id;
    await client.runs.wait(threadId, "chat", { input: { messages: [{ role: "user", content: "Weather in Beijing?" }] } });
    const firstRun = await newestRun(threadId);
    await client.runs.wait(threadId, "chat", { input: { messages: [{ role: "user", content: "And tomorrow?" }] } });

    // Regenerate the last answer as agent-chat-ui does: no input, from the parent of the answer's first-seen state.
    const head = (await client.threads.getState<{ messages: Msg[] }>(threadId)).values.messages;
    const beforeAnswer = (await shown(threadId)).meta(head.at(-1)!.id).firstSeenState!.parent_checkpoint!;
    await client.runs.wait(threadId, "chat", { input: null, checkpoint: beforeAnswer });
    const regenerate = await newestRun(threadId);

    // Then edit the first question as agent-chat-ui does: a new message (no id) from the parent of its first-seen state.
    const question = head.find((m) => m.type === "human")!;
    const beforeQuestion = (await shown(threadId)).meta(question.id).firstSeenState!.parent_checkpoint!;
    await client.runs.wait(threadId, "chat", { input: { messages: [{ type: "human", content: "Weather in Shanghai?" }] }, checkpoint: beforeQuestion });
    const edit = await newestRun(threadId);

    // Exactly LangGraph's count: a regenerate adds LangGraph's own fork checkpoint and its step, an edit its input
    // checkpoint (a child of the checkpoint named) and its steps; no copy ("update") of either checkpoint.
    const all = await history(threadId, 500);
    expect(sourcesOf(all, regenerate)).toEqual(["fork", "loop"]);
    expect(sourcesOf(all, edit)).toEqual(["input", "loop", "loop"]);
    expect(all.filter((s) => s.metadata?.source === "update")).toEqual([]);
    const editInput = all.find((s) => s.metadata?.run_id === edit && s.metadata?.source === "input")!;
    expect(editInput.parent_checkpoint?.checkpoint_id).toBe(beforeQuestion.checkpoint_id);

    // The edited question, as agent-chat-ui shows it: both children of the checkpoint it forked from (the old
    // question's state and the edit's input) are in the window, and the message has a switcher between the two.
    const after = await shown(threadId);
    const children = after.window.filter((s) => s.parent_checkpoint?.checkpoint_id === beforeQuestion.checkpoint_id);
    expect(children.map((s) => s.metadata?.run_id).sort()).toEqual([firstRun, edit].sort());
    const edited = after.head.find((m) => m.type === "human")!;
    expect(edited.content).toBe("Weather in Shanghai?");
    expect(after.meta(edited.id).branch).toBeTruthy();
    expect(after.meta(edited.id).branchOptions).toHaveLength(2);
  });
});
