// The Runtime API on PostgreSQL (the machine's server, a fresh schema where a test needs an empty world): runs,
// approvals bound to their hash, input, queue + worker, budgets, the checkpoint fence and wait TTL, as on SQLite.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresDatabase } from "../../src/db/postgres/index.js";
import { parseDatabaseTarget, type PostgresTarget } from "../../src/db/database-target.js";
import { FENCING_TOKEN_KEY, LeaseLostError, PostgresRunStore, Scheduler } from "../../src/runs/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { fenceCheckpoints } from "../../src/runtime/checkpoint-fence.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { openPostgresStorage } from "../../src/runtime/storage/postgres-storage.js";
import { openWorld } from "../../src/testing/index.js";
import { counters, resetCounters } from "../fixtures/budget/graphs.js";
import { useTestSchema, withClient } from "../helpers/postgres.js";
import { fakeClock } from "../runs/helpers.js";

const schema = useTestSchema(import.meta.url);
const fixture = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const REPO = fixture("../../langgraph.json");
const MESSAGE = "Why did the payments deploy fail? Roll back if needed.";

const opened: Runtime[] = [];
afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

/** A runtime on a fresh schema (its own world) of the test server, migrated up front. */
async function open(config = REPO, url = schema.fresh().url): Promise<Runtime> {
  const rt = Runtime.open({ db: url, config });
  opened.push(rt);
  await rt.ready();
  return rt;
}

const internals = (rt: Runtime) => runtimeInternals(rt);
const world = (rt: Runtime) => openWorld({ db: internals(rt).storage.db as PostgresDatabase }).snapshot();
const statuses = async (rt: Runtime, runId: string) => (await internals(rt).runs.events(runId)).map((e) => e.to);

describe("Runtime on PostgreSQL", () => {
  it("runs city_weather to SUCCEEDED: three parallel tool calls, their spans, its checkpoints in the schema", async () => {
    const rt = await open();
    const view = await rt.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", user: "ann" });
    expect(view).toMatchObject({ status: "SUCCEEDED", usage: { model_calls: 2 } });
    expect(String(view.result)).toMatch(/Beijing.*Shanghai.*Shenzhen/s);
    expect(await statuses(rt, view.run_id)).toEqual(["QUEUED", "RUNNING", "SUCCEEDED"]);
    const spans = await rt.trace.spans(view.run_id);
    expect(spans.filter((s) => s.kind === "tool_call").map((s) => s.name)).toEqual(Array(3).fill("execute_tool get_weather"));
    expect(spans.filter((s) => s.kind === "model_call")).toHaveLength(2);
    expect(spans.find((s) => s.kind === "invoke_agent")).toMatchObject({ status: "ok" });
    // Reads go past the ledger: it records side effects only.
    expect(await internals(rt).storage.ledger.list(view.run_id)).toEqual([]);
    expect((await world(rt)).calls).toEqual({ get_weather: 3 });
    const name = (internals(rt).storage.db as PostgresDatabase).schema;
    const rows = await withClient((c) => c.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}.checkpoints WHERE thread_id = $1`, [view.thread_id]));
    expect(Number(rows.rows[0]!.n)).toBeGreaterThan(0);
  });

  it("approves ops_rollback only with the pending action's hash: a wrong one changes nothing, the right one rolls back once", async () => {
    const rt = await open();
    const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    const action = waiting.pending[0]!;
    expect(action).toMatchObject({ tool: "rollback_deployment", args_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await expect(rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: "0".repeat(64) })).rejects.toMatchObject({ code: "ARGS_HASH_MISMATCH" });
    expect(await rt.get(waiting.run_id)).toEqual(waiting);
    expect((await world(rt)).calls.rollback_deployment ?? 0).toBe(0);
    expect(await internals(rt).storage.ledger.list(waiting.run_id)).toEqual([]);

    const done = await rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash });
    expect(done.status).toBe("SUCCEEDED");
    expect(JSON.stringify(done.result)).toContain("Rolled back to rev-184");
    expect((await world(rt)).calls.rollback_deployment).toBe(1);
    const ledger = await internals(rt).storage.ledger.list(waiting.run_id);
    expect(ledger).toEqual([expect.objectContaining({ tool: "rollback_deployment", status: "done", attempts: 1, externalOperationId: expect.stringMatching(/^op_deploy_/) })]);
    const rollbackSpan = (await rt.trace.spans(waiting.run_id)).find((s) => s.kind === "tool_call" && s.tool === "rollback_deployment");
    expect(rollbackSpan?.externalOperationId).toBe(ledger[0]!.externalOperationId);
    await expect(rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash })).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
    expect((await world(rt)).calls.rollback_deployment).toBe(1);
  });

  it("pauses order_delay WAITING_INPUT and resumes it with the answer", async () => {
    const rt = await open();
    const waiting = await rt.submit({ graph: "order_delay", message: "Is my order late? Please tell the sales rep if so.", user: "ann" });
    expect(waiting.status).toBe("WAITING_INPUT");
    expect(waiting.input_requests).toHaveLength(1);
    const done = await rt.provideInput(waiting.run_id, { text: "10086", by: "ann" });
    expect(done).toMatchObject({ status: "SUCCEEDED", input_requests: [] });
    expect(JSON.stringify(done.result)).toContain("10086");
    expect(await statuses(rt, waiting.run_id)).toEqual(["QUEUED", "RUNNING", "WAITING_INPUT", "RUNNING", "SUCCEEDED"]);
  });

  it("leaves a queued run and a queued approval to a worker on another runtime of the same schema", async () => {
    const { url } = schema.fresh();
    const submitter = await open(REPO, url);
    const executor = await open(REPO, url);
    const queued = await submitter.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice", queue: true });
    expect(queued.status).toBe("QUEUED");
    expect(await executor.worker({ once: true, pollMs: 10 }).run()).toMatchObject({ claimed: 1, lost: 0 });
    const waiting = await submitter.get(queued.run_id);
    expect(waiting.status).toBe("WAITING_APPROVAL");
    const action = waiting.pending[0]!;
    const approved = await submitter.approve(queued.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true });
    expect(approved.status).toBe("QUEUED");
    expect((await world(submitter)).calls.rollback_deployment ?? 0).toBe(0);
    expect(await executor.worker({ once: true, pollMs: 10 }).run()).toMatchObject({ claimed: 1, lost: 0 });
    expect((await submitter.get(queued.run_id)).status).toBe("SUCCEEDED");
    expect((await world(submitter)).calls.rollback_deployment).toBe(1);
    expect(await statuses(submitter, queued.run_id)).toEqual(["QUEUED", "RUNNING", "WAITING_APPROVAL", "QUEUED", "RUNNING", "SUCCEEDED"]);
  });

  it("stops a run over budget before the model call, with the budget's code and the calls counted", async () => {
    resetCounters();
    const rt = await open(fixture("../fixtures/budget/langgraph.json"));
    const view = await rt.submit({ graph: "looper", message: "count to three", budget: { maxModelCalls: 2 } });
    expect(view).toMatchObject({ status: "FAILED", error: { code: "BUDGET_MODEL_CALLS" }, usage: { model_calls: 2 } });
    expect(counters.modelCalls.looper).toBe(2);
    expect((await rt.get(view.run_id)).usage.model_calls).toBe(2);
  });

  it("expires a wait past its TTL: approving is refused and nothing runs", async () => {
    const rt = await open();
    const waiting = await rt.submit({ graph: "ops_rollback", message: MESSAGE, user: "alice", waitTtlMs: 5 });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    const deadline = (await internals(rt).runs.get(waiting.run_id)).waitExpiresAt!;
    while (Date.now() <= deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const action = waiting.pending[0]!;
    await expect(rt.approve(waiting.run_id, { actionId: action.action_id, argsHash: action.args_hash })).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
    expect(await rt.get(waiting.run_id)).toMatchObject({ status: "EXPIRED", error: { code: "WAIT_EXPIRED" } });
    expect((await world(rt)).calls.rollback_deployment ?? 0).toBe(0);
    expect((await rt.trace.spans(waiting.run_id)).filter((s) => s.kind === "state_change").map((s) => s.name)).toContain("WAITING_APPROVAL → EXPIRED");
  });
});

describe("the checkpoint fence on PostgreSQL", () => {
  it("refuses the checkpoint write of a run canceled by another connection: nothing of that step is stored", async () => {
    const rt = await open(fixture("../fixtures/fence/langgraph.json"));
    const view = await rt.submit({ graph: "cancel_elsewhere", input: {} });
    expect(view.status).toBe("CANCELED");
    const graph = (await rt.registry.load("cancel_elsewhere")) as unknown as { getState(c: object): Promise<{ values: { steps?: string[] }; next: string[] }> };
    const state = await graph.getState({ configurable: { thread_id: view.thread_id } });
    expect(state.values.steps ?? []).toEqual([]);
    expect(state.next).toEqual(["cancel_elsewhere"]);
  });

  it("refuses a stale holder's checkpoint write once a second store took the run over; the new holder's passes", async () => {
    const target = parseDatabaseTarget(schema.fresh().url) as PostgresTarget;
    const clock = fakeClock();
    const storage = openPostgresStorage(target);
    const elsewhere = new PostgresDatabase(target);
    try {
      await storage.ready();
      const runs = PostgresRunStore.open(storage.db as PostgresDatabase, { clock });
      const other = PostgresRunStore.open(elsewhere, { clock });
      const run = await runs.create({ graphId: "g", input: {} });
      const first = (await new Scheduler(runs).claimRun(run.runId, { workerId: "w1", leaseMs: 1_000 }))!;
      clock.advance(5_000);
      const second = (await new Scheduler(other).claimNext({ workerId: "w2", leaseMs: 60_000 }))!;
      expect(second.run).toMatchObject({ runId: run.runId, status: "RUNNING", lease: { owner: "w2" } });
      expect(second.lease.token).toBeGreaterThan(first.lease.token);

      const saver = storage.checkpointer(fenceCheckpoints(runs, new Map([[run.runId, first.lease]])));
      const checkpoint = { v: 4, id: "1ef00000-0000-6000-8000-000000000001", ts: new Date(0).toISOString(), channel_values: { x: 1 }, channel_versions: { x: 1 }, versions_seen: {} };
      const config = (token: number) => ({ configurable: { thread_id: run.threadId, checkpoint_ns: "", run_id: run.runId, [FENCING_TOKEN_KEY]: token } });
      await expect(saver.put(config(first.lease.token), checkpoint, { source: "loop", step: 0, parents: {} }, {})).rejects.toBeInstanceOf(LeaseLostError);
      expect(first.lease.signal.aborted).toBe(true);
      expect(await saver.getTuple({ configurable: { thread_id: run.threadId, checkpoint_ns: "" } })).toBeUndefined();

      const current = storage.checkpointer(fenceCheckpoints(other, new Map([[run.runId, second.lease]])));
      await current.put(config(second.lease.token), checkpoint, { source: "loop", step: 0, parents: {} }, {});
      expect((await saver.getTuple({ configurable: { thread_id: run.threadId, checkpoint_ns: "" } }))?.checkpoint.id).toBe(checkpoint.id);
    } finally {
      await elsewhere.close();
      await storage.close();
    }
  });
});
