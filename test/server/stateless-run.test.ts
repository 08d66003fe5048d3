// A stateless run (runs.wait / runs.create without a thread) gets a thread made for it, and the server does not
// look for that new thread's unfinished runs first (a per-call query that can only find none).
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { fixtureEntry, startTestServer } from "./harness.js";

describe("stateless runs", () => {
  it("make their thread without listing its runs, and run on it", async () => {
    const { server, client } = await startTestServer({}, { chat: fixtureEntry("chat-graph") });
    onTestFinished(() => server.close());
    const { runs } = runtimeInternals(server.runtime);
    const list = vi.spyOn(runs, "list");

    const values = (await client.runs.wait(null, "chat", { input: { messages: [{ role: "user", content: "weather?" }] } })) as { messages: unknown[] };
    expect(values.messages).toHaveLength(2);
    expect(list.mock.calls.filter(([filter]) => filter?.threadId !== undefined && filter.status !== undefined)).toEqual([]);

    // The run is on a thread of its own, which exists and belongs to the graph.
    const [run] = await runs.list({ graphId: "chat" });
    expect(run?.threadId).toBeDefined();
    const thread = await client.threads.get(run!.threadId);
    expect(thread.metadata).toMatchObject({ graph_id: "chat" });
    expect((await client.runs.list(run!.threadId)).map((r) => r.run_id)).toEqual([run!.runId]);
  });
});
