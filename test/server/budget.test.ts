// A run's budget over HTTP (agentrt extension of the run body): enforced like the CLI's; a bad one is 422 and creates
// nothing; on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeInternals } from "../../src/runtime/internals.js";
import type { AgentServer } from "../../src/server/server.js";
import { ROLLBACK_INPUT, serverBackends, startTestServer } from "./harness.js";

describe.each(serverBackends(import.meta.url))("budget in the run body on $backend", ({ db }) => {
  let server: AgentServer;

  beforeAll(async () => {
    ({ server } = await startTestServer({ db: db() }));
  });
  afterAll(async () => {
    await server.close();
  });

  const post = (body: unknown) =>
    fetch(`${server.url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const runs = () => runtimeInternals(server.runtime).runs.list();

  it("a bad budget is 422 BAD_INPUT and no run is created", async () => {
    const response = await post({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT, budget: { maxSteps: -1 } });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "BAD_INPUT", message: expect.stringMatching(/maxSteps/) });
    expect(await runs()).toEqual([]);
  });

  it("is stored with the run and stops it before a model call", async () => {
    await (await post({ assistant_id: "ops_rollback", input: ROLLBACK_INPUT, budget: { maxModelCalls: 0 } })).text();
    const [run] = await runs();
    expect(run).toMatchObject({ budget: { maxModelCalls: 0 }, status: "FAILED", errorCode: "BUDGET_MODEL_CALLS", usage: { modelCalls: 0 } });
  });
});
