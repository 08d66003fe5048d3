// A thread whose state cannot be read — a graph bug stored a write its reducer refuses, or its graph left
// langgraph.json — is shown as damaged: listings still list every thread, and the thread itself, its state and
// its history answer 200 with the reason in place of its values, never a 500.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startServer } from "../../src/server/server.js";
import { fixtureEntry, startTestServer } from "./harness.js";
import { httpCall } from "./http-call.js";

const call = httpCall;

const say = (content: string) => ({ messages: [{ role: "user", content }] });

describe("a damaged thread", () => {
  it("is listed as such among the others, and its reads answer with the reason", async () => {
    const graphs = { poison: fixtureEntry("poison-graph"), chat: fixtureEntry("chat-graph") };
    const { server, client, project } = await startTestServer({}, graphs);
    let second: Awaited<ReturnType<typeof startServer>> | undefined;
    try {
      const healthy = await client.threads.create({ metadata: { kind: "healthy" } });
      await client.runs.wait(healthy.thread_id, "poison", { input: say("hello") });
      const poisoned = await client.threads.create({ metadata: { kind: "poisoned" } });
      // The run that stored the refused write fails, and says why.
      const failed = await call(server.url, "POST", `/threads/${poisoned.thread_id}/runs/wait`, { assistant_id: "poison", input: say("poison") });
      expect(failed.status).toBe(200);
      expect(failed.json.__error__?.message).toMatch(/Unable to coerce message/);
      const orphan = await client.threads.create({ metadata: { kind: "orphan" } });
      await client.runs.wait(orphan.thread_id, "chat", { input: say("hi") });
      await server.close();

      // The chat graph leaves langgraph.json: its thread's state has no graph to be read through.
      writeFileSync(project.config, JSON.stringify({ graphs: { poison: graphs.poison } }));
      second = await startServer({ port: 0, db: project.db, config: project.config, log: () => undefined, apiKey: "" });
      const url = second.url;

      const listed = await call(url, "POST", "/threads/search", { limit: 10 });
      expect(listed.status).toBe(200);
      const byKind = new Map(listed.json.map((t) => [String(t.metadata?.kind), t]));
      expect([...byKind.keys()].sort()).toEqual(["healthy", "orphan", "poisoned"]);
      expect(byKind.get("healthy")?.values).toMatchObject({ messages: [{ content: "hello" }, { content: "fine" }] });
      expect(byKind.get("healthy")?.error).toBeUndefined();
      expect(byKind.get("poisoned")?.values).toEqual({ __error__: byKind.get("poisoned")?.error });
      expect(byKind.get("poisoned")?.error).toMatchObject({ error: "THREAD_STATE_UNREADABLE", message: expect.stringMatching(/^the state of thread \S+ cannot be read: Unable to coerce message/) });
      expect(byKind.get("orphan")?.error?.message).toMatch(/unknown graph "chat"/);
      expect((await call(url, "POST", "/threads/search", { limit: 10, status: "error" })).status).toBe(200);

      for (const thread of [poisoned, orphan]) {
        const got = await call(url, "GET", `/threads/${thread.thread_id}`);
        expect(got.status).toBe(200);
        expect(got.json.error?.error).toBe("THREAD_STATE_UNREADABLE");
        const state = await call(url, "GET", `/threads/${thread.thread_id}/state`);
        expect(state.status).toBe(200);
        expect(state.json.values).toEqual({ __error__: expect.objectContaining({ error: "THREAD_STATE_UNREADABLE" }) });
        // Where the thread stands, as stored: its newest checkpoint and the run that wrote it.
        expect(state.json.checkpoint?.checkpoint_id).toEqual(expect.any(String));
        expect(state.json.metadata).toMatchObject({ run_id: expect.stringMatching(/^run_/) });
        const history = await call(url, "POST", `/threads/${thread.thread_id}/history`, {});
        expect(history.status).toBe(200);
        expect(history.json[0]?.checkpoint?.checkpoint_id).toBe(state.json.checkpoint?.checkpoint_id);
      }
      // A late join of the failed run's stream ends with its error, not a broken connection.
      const [failedRun] = (await call(url, "GET", `/threads/${poisoned.thread_id}/runs`)).json;
      const joined = await (await fetch(`${url}/threads/${poisoned.thread_id}/runs/${String(failedRun?.run_id)}/stream`)).text();
      expect(joined).toMatch(/event: error\ndata: .*Unable to coerce message/);
      // And it can be deleted.
      expect((await call(url, "DELETE", `/threads/${poisoned.thread_id}`)).status).toBe(204);
      expect((await call(url, "POST", "/threads/search", { limit: 10 })).json).toHaveLength(2);
    } finally {
      await second?.close();
    }
  });
});
