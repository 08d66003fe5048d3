// A run started without HTTP (the CLI, the Runtime, a worker) has no thread row, yet its thread reads like any
// other through the thread routes: GET /threads/{id}, its state and history, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import type { AgentServer } from "../../src/server/server.js";
import { ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

// Read loosely: each test names the fields it checks.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  let server: AgentServer;
  let threadId: string;
  let runId: string;
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const res = await fetch(`${server.url}${path}`, {
      method, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text === "" ? undefined : JSON.parse(text) };
  };

  beforeAll(async () => {
    const started = await startTestServer({ db: db() });
    server = started.server;
    // As `agentrt run ops_rollback --user carol --message …` does: the Runtime alone, on the same database.
    const runtime = Runtime.open({ db: started.project.db, config: started.project.config });
    try {
      const run = await runtime.submit({ graph: "ops_rollback", message: ROLLBACK_INPUT.messages[0]!.content, user: "carol" });
      expect(run.status).toBe("WAITING_APPROVAL");
      threadId = run.thread_id;
      runId = run.run_id;
    } finally {
      await runtime.close();
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("answers GET /threads/{id} with the run's graph, status and values", async () => {
    const { status, json } = await call("GET", `/threads/${threadId}`);
    expect(status).toBe(200);
    expect(json.thread_id).toBe(threadId);
    expect(json.metadata.graph_id).toBe("ops_rollback");
    expect(json.status).toBe("interrupted");
    expect(json.values.messages.length).toBeGreaterThan(1);
  });

  it("answers its state and history (GET and POST), with the run's checkpoints", async () => {
    const state = await call("GET", `/threads/${threadId}/state`);
    expect(state.status).toBe(200);
    expect(state.json.values.messages[0].content).toContain("payments deploy");
    expect(state.json.next).toEqual(["tools"]);
    const history = await call("POST", `/threads/${threadId}/history`, { limit: 50 });
    expect(history.status).toBe(200);
    expect(history.json.length).toBeGreaterThan(2);
    expect(history.json.every((cp: { metadata: { run_id?: string } }) => cp.metadata.run_id === runId)).toBe(true);
    expect((await call("GET", `/threads/${threadId}/history?limit=2`)).json).toHaveLength(2);
    expect((await call("GET", `/threads/${threadId}/runs`)).json.map((r: { run_id: string }) => r.run_id)).toEqual([runId]);
  });

  it("still answers 404 UNKNOWN_THREAD for a thread neither a row nor a run has", async () => {
    const { status, json } = await call("GET", "/threads/00000000-0000-4000-8000-000000000000/state");
    expect(status).toBe(404);
    expect(json.code ?? json.error).toBe("UNKNOWN_THREAD");
  });

  it("gives the thread its row on its first write, so it is listed from then on", async () => {
    expect((await call("POST", "/threads/search", { ids: [threadId] })).json).toEqual([]);
    const patched = await call("PATCH", `/threads/${threadId}`, { metadata: { team: "payments" } });
    expect(patched.status).toBe(200);
    expect(patched.json.metadata).toEqual({ graph_id: "ops_rollback", team: "payments" });
    const listed = await call("POST", "/threads/search", { ids: [threadId] });
    expect(listed.json.map((t: { thread_id: string }) => t.thread_id)).toEqual([threadId]);
  });

  it("forgets the thread once deleted, though its runs are kept", async () => {
    expect((await call("DELETE", `/threads/${threadId}`)).status).toBe(204);
    expect((await call("GET", `/threads/${threadId}`)).status).toBe(404);
    expect((await call("GET", `/threads/${threadId}/state`)).status).toBe(404);
    expect((await call("GET", `/agentrt/runs/${runId}`)).json.status).toBe("CANCELED");
  });
});
