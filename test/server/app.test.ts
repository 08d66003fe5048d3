// Bad input over HTTP: each gets a clear status and none changes stored state; CORS preflights; SSE clients that leave.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import type { AgentServer } from "../../src/server/server.js";
import { ROLLBACK_INPUT, startTestServer } from "./harness.js";

let server: AgentServer;
let client: Client;

beforeAll(async () => {
  ({ server, client } = await startTestServer({ maxBodyBytes: 4096, corsOrigins: ["https://smith.langchain.com"] }));
});
afterAll(async () => {
  await server.close();
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: response.status, body: (await response.json()) as { code: string; message: string } };
}

describe("bad input", () => {
  it("answers malformed JSON 400, a schema violation 422 with the reason, an oversized body 413", async () => {
    const malformed = await post("/threads", "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/malformed JSON/);
    const invalid = await post("/runs/wait", JSON.stringify({ input: {} }));
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toMatch(/assistant_id/);
    const wrongType = await post("/threads/search", JSON.stringify({ limit: "ten" }));
    expect(wrongType.status).toBe(422);
    const huge = await post("/threads", JSON.stringify({ metadata: { blob: "x".repeat(10_000) } }));
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await client.threads.search({ limit: 100 })).toEqual([]);
  });

  it("closes the connection after a 413, so a client reusing it does not send its next request into the unread body", async () => {
    const huge = await fetch(`${server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ blob: "x".repeat(2_000_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.headers.get("connection")).toBe("close");
    await huge.text();
    // The next requests from the same keep-alive pool (the one fetch shares) go through.
    expect((await post("/threads/search", "{}")).status).toBe(200);
    expect((await fetch(`${server.url}/ok`)).status).toBe(200);
  });

  it("answers 404 for an unknown graph, thread or run and 409 for a resume of a thread that is not interrupted", async () => {
    expect((await post("/runs/wait", JSON.stringify({ assistant_id: "no_such_graph", input: {} }))).status).toBe(404);
    expect((await post("/threads/nope/runs", JSON.stringify({ assistant_id: "ops_rollback", input: {} }))).status).toBe(404);
    expect((await fetch(`${server.url}/threads/nope/state`)).status).toBe(404);
    expect((await fetch(`${server.url}/agentrt/runs/run_nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/assistants/nope`)).status).toBe(404);

    const thread = await client.threads.create();
    const idle = await post(`/threads/${thread.thread_id}/runs`, JSON.stringify({ assistant_id: "ops_rollback", command: { resume: { action_id: "act_x", args_hash: "h", decision: "approve" } } }));
    expect(idle.status).toBe(409);
    expect(idle.body.code).toBe("THREAD_NOT_INTERRUPTED");
    expect((await client.threads.getState(thread.thread_id)).checkpoint).toBeNull();
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
  });

  it("answers CORS preflights for allowed origins only", async () => {
    const preflight = (origin: string) => fetch(`${server.url}/threads`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,x-api-key" },
    });
    const allowed = await preflight("https://smith.langchain.com");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://smith.langchain.com");
    expect(allowed.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-api-key");
    expect(allowed.headers.get("access-control-allow-private-network")).toBe("true");
    expect((await preflight("https://evil.example")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("keeps the run going when the SSE client disconnects mid-stream", async () => {
    const thread = await client.threads.create();
    const abort = new AbortController();
    const response = await fetch(`${server.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT, stream_mode: ["updates"] }),
      signal: abort.signal,
    });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/event: metadata/);
    abort.abort();
    await reader.cancel().catch(() => undefined);

    const [run] = await client.runs.list(thread.thread_id);
    const values = await client.runs.join(thread.thread_id, run!.run_id);
    expect((values as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    expect((await client.runs.get(thread.thread_id, run!.run_id)).status).toBe("interrupted");
    // The run waits, unfinished: asked to hold it (if_waiting reject), the thread refuses a second input; by default
    // new input would supersede it (new-input.test.ts).
    const held = await post(`/threads/${thread.thread_id}/runs`, JSON.stringify({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT, if_waiting: "reject" }));
    expect(held.status).toBe(409);
    expect(held.body.code).toBe("THREAD_BUSY");
  });
});
