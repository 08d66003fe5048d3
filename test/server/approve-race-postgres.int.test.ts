// An approval answered 200 is never thrown away by new input racing it (PostgreSQL, `serve --workers 2`): a run
// waits for approval, then the approve and new input on its thread are sent 0–15 ms apart, a bounded number of
// times. Whichever wins, an approve answered 200 ends with its run SUCCEEDED and exactly one more rollback, never
// CANCELED as "superseded … not performed" (before the fix: 19 of 40, 4 of 25, 8 of 20 trials lost the approval).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type AgentServer } from "../../src/server/server.js";
import { closeWorlds, openWorld } from "../../src/testing/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { graphFile, ROLLBACK_INPUT } from "./harness.js";
import { httpCall } from "./http-call.js";

const schema = useTestSchema(import.meta.url);
const TRIALS = 12;
let server: AgentServer;

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  const dir = mkdtempSync(join(tmpdir(), "agentrt-approve-race-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { ops_rollback: `${graphFile("ops_rollback")}:graph` } }));
  server = await startServer({ port: 0, db: schema.url, config, apiKey: "", workers: 2, log: () => undefined });
  const end = Date.now() + 60_000;
  while (!(server.workers.length === 2 && server.workers.every((w) => w.ready))) {
    if (Date.now() > end) throw new Error("timed out waiting for the worker processes");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});
afterAll(async () => {
  await server.close();
  await closeWorlds();
});

const rollbacks = async () => (await openWorld({ path: schema.url }).snapshot()).calls.rollback_deployment ?? 0;
const NEW_INPUT = { assistant_id: "ops_rollback", input: { messages: [{ role: "user", content: "Also, who deployed it?" }] } };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One trial: a waiting run, then approve and new input `gap` ms apart; what each answered and where the run ended. */
async function trial(gap: number) {
  // A fresh world: the failed deploy is there to roll back again.
  await openWorld({ path: schema.url }).reset();
  const thread = (await httpCall(server.url, "POST", "/threads", {})).json.thread_id as string;
  await httpCall(server.url, "POST", `/threads/${thread}/runs/wait`, { assistant_id: "ops_rollback", input: ROLLBACK_INPUT });
  const [waiting] = (await httpCall(server.url, "GET", `/threads/${thread}/runs`)).json;
  const runId = String(waiting!.run_id);
  const view = (await httpCall(server.url, "GET", `/agentrt/runs/${runId}`)).json as unknown as { status: string; pending: { action_id: string; args_hash: string }[] };
  expect(view.status).toBe("WAITING_APPROVAL");
  const before = await rollbacks();
  const approve = httpCall(server.url, "POST", `/agentrt/runs/${runId}/approve`, { action_id: view.pending[0]!.action_id, args_hash: view.pending[0]!.args_hash });
  await sleep(gap);
  const input = await httpCall(server.url, "POST", `/threads/${thread}/runs`, NEW_INPUT);
  const approved = await approve;
  await httpCall(server.url, "GET", `/threads/${thread}/runs/${runId}/join`);
  const after = (await httpCall(server.url, "GET", `/agentrt/runs/${runId}`)).json as unknown as { status: string; error: { message: string } | null };
  return { approve: approved.status, input: input.status, status: after.status, error: after.error?.message ?? "", rollbacks: (await rollbacks()) - before };
}

describe("approve racing new input on PostgreSQL with two worker processes", () => {
  it(`never throws away an approval answered 200 (${TRIALS} trials, 0–15 ms apart)`, async () => {
    const outcomes = [];
    for (let i = 0; i < TRIALS; i++) outcomes.push(await trial(Math.floor((i * 15) / (TRIALS - 1))));
    for (const o of outcomes) {
      if (o.approve === 200) {
        expect(o).toMatchObject({ status: "SUCCEEDED", rollbacks: 1 });
        // The new input found the run queued or running: refused (the default strategy), not a supersede.
        expect(o.input).toBe(409);
      } else {
        expect(o).toMatchObject({ approve: 409, input: 200, status: "CANCELED", rollbacks: 0 });
        expect(o.error).toContain("superseded by new input on its thread; pending actions not performed");
      }
    }
  }, 300_000);
});
