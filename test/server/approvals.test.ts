// Approvals over HTTP with auth: the pending action's hash binds the decision, and the decider is the key's owner.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { startServer } from "../../src/server/server.js";
import { type Approval, ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  const KEYS = "alice:alice-key-123,mallory:mallory-key-456";
  let server: AgentServer;

  beforeAll(async () => {
    ({ server } = await startTestServer({ db: db(), apiKey: KEYS }));
  });
  afterAll(async () => {
    await server.close();
  });

  async function call(path: string, key: string | undefined, init: { method?: string; body?: unknown; bearer?: boolean } = {}) {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (key !== undefined) headers[init.bearer === true ? "authorization" : "x-api-key"] = init.bearer === true ? `Bearer ${key}` : key;
    const response = await fetch(`${server.url}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & unknown[] };
  }

  describe("approvals over HTTP with API keys", () => {
    it("answers 401 without a key or with a wrong one, and accepts x-api-key and Bearer", async () => {
      expect((await call("/assistants/search", undefined, { body: {} })).status).toBe(401);
      expect((await call("/assistants/search", "nope-nope-nope", { body: {} })).status).toBe(401);
      expect((await call("/assistants/search", "alice-key-123", { body: {} })).status).toBe(200);
      expect((await call("/assistants/search", "alice-key-123", { body: {}, bearer: true })).status).toBe(200);
      expect((await call("/ok", undefined)).status).toBe(200);
    });

    it("lists pending approvals, refuses a wrong hash and a foreign approver, and approves as the caller", async () => {
      const waiting = await call("/runs/wait", "alice-key-123", { body: { assistant_id: "ops_rollback", input: ROLLBACK_INPUT } });
      expect(waiting.status).toBe(200);
      const runs = await call("/agentrt/runs?status=WAITING_APPROVAL", "alice-key-123");
      const run = runs.body[0] as { run_id: string; user: string };
      expect(run.user).toBe("alice");
      const approvals = await call(`/agentrt/runs/${run.run_id}/approvals`, "alice-key-123");
      const [action] = approvals.body as Approval[];
      expect(action?.tool).toBe("rollback_deployment");
      expect(action?.args_hash).toMatch(/^[0-9a-f]{64}$/);

      const wrongHash = await call(`/agentrt/runs/${run.run_id}/approve`, "alice-key-123", { body: { action_id: action?.action_id, args_hash: "f".repeat(64) } });
      expect(wrongHash.status).toBe(409);
      expect(wrongHash.body.code).toBe("ARGS_HASH_MISMATCH");
      // The body may not name the approver: mallory's key stays mallory even when the body says alice.
      const foreign = await call(`/agentrt/runs/${run.run_id}/approve`, "mallory-key-456", { body: { action_id: action?.action_id, args_hash: action?.args_hash, by: "alice" } });
      expect(foreign.status).toBe(403);
      expect(foreign.body.code).toBe("APPROVER_NOT_ALLOWED");
      expect((await call(`/agentrt/runs/${run.run_id}`, "alice-key-123")).body.status).toBe("WAITING_APPROVAL");

      const approved = await call(`/agentrt/runs/${run.run_id}/approve`, "alice-key-123", { body: { action_id: action?.action_id, args_hash: action?.args_hash } });
      expect(approved.status).toBe(200);
      expect(approved.body.status).toBe("SUCCEEDED");
      expect((await call(`/agentrt/runs/${run.run_id}/approvals`, "alice-key-123")).body).toEqual([]);
      const again = await call(`/agentrt/runs/${run.run_id}/approve`, "alice-key-123", { body: { action_id: action?.action_id, args_hash: action?.args_hash } });
      expect(again.status).toBe(409);
    });

    it("refuses to listen on a non-loopback host without a key", async () => {
      await expect(startServer({ port: 0, host: "0.0.0.0", apiKey: "", db: ":memory:", log: () => undefined })).rejects.toThrow(/without AGENTRT_API_KEY/);
    });
  });
});
