// A run's budget over HTTP (agentrt extension of the run body): enforced like the CLI's; a bad one is 422 and creates nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { SqliteRunStore } from "../../src/runs/index.js";
import type { AgentServer } from "../../src/server/server.js";
import { ROLLBACK_INPUT, startTestServer } from "./harness.js";

let server: AgentServer;
let db: string;

beforeAll(async () => {
  const started = await startTestServer();
  server = started.server;
  db = started.project.db;
});
afterAll(async () => {
  await server.close();
});

const post = (body: unknown) =>
  fetch(`${server.url}/runs/wait`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function runs() {
  const database = openDatabase(db);
  try {
    return await SqliteRunStore.open(database).list();
  } finally {
    database.close();
  }
}

describe("budget in the run body", () => {
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
