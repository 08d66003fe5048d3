// A thread known only from its runs (started by the CLI or the Runtime) belongs to its runs' user: creating a thread
// of that id over HTTP never hands it to another caller, and a deleted thread's id whose runs were another user's is
// not given out again (its new owner would read those runs). Before, bob's create with if_exists "do_nothing"
// stored a row owned by bob, and with it carol's conversation, runs and traces were his.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import type { AgentServer } from "../../src/server/server.js";
import { ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

const KEYS = "carol:carol-key-1234,bob:bob-key-56789";

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  let server: AgentServer;
  let threadId: string;
  const call = async (key: string, method: string, path: string, body?: unknown): Promise<{ status: number; code?: string }> => {
    const res = await fetch(`${server.url}${path}`, {
      method, headers: { "content-type": "application/json", "x-api-key": key }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, code: text === "" ? undefined : (JSON.parse(text) as { code?: string }).code };
  };

  beforeAll(async () => {
    const started = await startTestServer({ db: db(), apiKey: KEYS });
    server = started.server;
    const runtime = Runtime.open({ db: started.project.db, config: started.project.config });
    try {
      threadId = (await runtime.submit({ graph: "ops_rollback", message: ROLLBACK_INPUT.messages[0]!.content, user: "carol" })).thread_id;
    } finally {
      await runtime.close();
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it("a create of a CLI-started thread's id is that thread (409, or carol's with do_nothing), never bob's", async () => {
    expect(await call("bob-key-56789", "POST", "/threads", { thread_id: threadId })).toMatchObject({ status: 409, code: "THREAD_EXISTS" });
    expect((await call("bob-key-56789", "POST", "/threads", { thread_id: threadId, if_exists: "do_nothing" })).status).toBe(403);
    expect(await call("bob-key-56789", "GET", `/threads/${threadId}`)).toMatchObject({ status: 403, code: "NOT_OWNER" });
    expect(await call("bob-key-56789", "GET", `/threads/${threadId}/runs`)).toMatchObject({ status: 403 });
    expect((await call("carol-key-1234", "GET", `/threads/${threadId}`)).status).toBe(200);
  });

  it("a deleted thread's id whose runs were carol's is not given to bob", async () => {
    expect((await call("carol-key-1234", "DELETE", `/threads/${threadId}`)).status).toBe(204);
    expect(await call("bob-key-56789", "POST", "/threads", { thread_id: threadId })).toMatchObject({ status: 409, code: "THREAD_EXISTS" });
    expect((await call("carol-key-1234", "POST", "/threads", { thread_id: threadId })).status).toBe(200);
  });
});
