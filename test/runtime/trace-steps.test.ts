// The runtime's trace of a real run: invoke_agent → step → model_turn / execute_tool, with tool attributes.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";

const config = fileURLToPath(new URL("../../langgraph.json", import.meta.url));
let runtime: Runtime;

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  runtime = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-rt-")), "rt.db"), config });
});
afterAll(() => runtime.close());

describe("runtime trace", () => {
  it("names the sub-agent of each step and call in a multi-agent graph", async () => {
    const view = await runtime.submit({ graph: "ops_copilot", message: "Why did the checkout deploy fail?", user: "ann" });
    const spans = await runtime.trace.spans(view.run_id);
    const steps = spans.filter((s) => s.kind === "step");
    // The supervisor is the root graph's own agent; the specialist's turns are its steps, not the supervisor's.
    expect(steps[0]).toMatchObject({ name: "step 1", agent: "ops_copilot" });
    expect(steps.slice(1).map((s) => s.name)).toEqual(expect.arrayContaining([expect.stringMatching(/^deploy_specialist step \d+$/)]));
    const specialist = spans.filter((s) => (s.kind === "model_call" || s.kind === "tool_call") && s.agent === "deploy_specialist");
    expect(specialist.map((s) => s.name)).toEqual(expect.arrayContaining(["execute_tool get_deployment"]));
    for (const call of specialist) expect(spans.find((s) => s.spanId === call.parentId)?.name).toMatch(/^deploy_specialist step/);
    expect(spans.filter((s) => s.kind === "model_call" && s.agent === "ops_copilot")).not.toHaveLength(0);
  });

  it("groups each model turn with the tool calls it asked for under one step span", async () => {
    const view = await runtime.submit({ graph: "city_weather", message: "Weather for Beijing, Shanghai and Shenzhen", user: "ann" });
    expect(view.status).toBe("SUCCEEDED");
    const spans = await runtime.trace.spans(view.run_id);
    const root = spans.find((s) => s.kind === "invoke_agent");
    const steps = spans.filter((s) => s.kind === "step");
    expect(steps.map((s) => s.name)).toEqual(["step 1", "step 2"]);
    for (const step of steps) expect(step.parentId).toBe(root?.spanId);

    const tools = spans.filter((s) => s.kind === "tool_call");
    expect(tools).toHaveLength(3);
    const firstStep = steps[0]!;
    for (const tool of tools) {
      expect(tool.parentId).toBe(firstStep.spanId);
      expect(tool.stepId).toBe(firstStep.stepId);
      expect(tool.attempt).toBe(1);
      expect(tool.idempotencyKey).toBe(`${view.run_id}:${tool.toolCallId}:1`);
      expect(tool.resultSize).toBeGreaterThan(0);
      // The step covers its children.
      expect(tool.startMs).toBeGreaterThanOrEqual(firstStep.startMs);
      expect(tool.endMs!).toBeLessThanOrEqual(firstStep.endMs!);
    }
    const models = spans.filter((s) => s.kind === "model_call");
    expect(models.map((m) => m.parentId)).toEqual(steps.map((s) => s.spanId));
  });

  it("records each lifecycle transition of the run as a state change", async () => {
    const view = await runtime.submit({ graph: "ops_rollback", message: "Why did the payments deploy fail?", user: "ann" });
    const action = view.pending[0]!;
    await runtime.approve(view.run_id, { actionId: action.action_id, argsHash: action.args_hash });
    const changes = (await runtime.trace.spans(view.run_id)).filter((s) => s.kind === "state_change").map((s) => s.name);
    expect(changes).toEqual(["QUEUED → RUNNING", "RUNNING → WAITING_APPROVAL", "WAITING_APPROVAL → RUNNING", "RUNNING → SUCCEEDED"]);
    const resumed = (await runtime.trace.spans(view.run_id)).find((s) => s.kind === "tool_call" && s.tool === "rollback_deployment");
    expect(resumed?.externalOperationId).toMatch(/^op_deploy_/);
  });

  it("also records transitions made outside this execution: a queued approval picked up by a worker", async () => {
    // A fresh file: the world of the shared one has already rolled payments back.
    const own = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-rt-")), "rt.db"), config });
    try {
      await queuedApproval(own);
    } finally {
      await own.close();
    }
  });
});

async function queuedApproval(runtime: Runtime): Promise<void> {
  const view = await runtime.submit({ graph: "ops_rollback", message: "Why did the payments deploy fail?", user: "ann" });
  const action = view.pending[0]!;
  const queued = await runtime.approve(view.run_id, { actionId: action.action_id, argsHash: action.args_hash, queue: true });
  expect(queued.status).toBe("QUEUED");
  await runtime.worker({ once: true, pollMs: 10 }).run();
  expect((await runtime.get(view.run_id)).status).toBe("SUCCEEDED");
  const changes = (await runtime.trace.spans(view.run_id)).filter((s) => s.kind === "state_change").map((s) => s.name);
  expect(changes).toEqual([
    "QUEUED → RUNNING", "RUNNING → WAITING_APPROVAL", "WAITING_APPROVAL → QUEUED", "QUEUED → RUNNING", "RUNNING → SUCCEEDED",
  ]);
  const waits = (await runtime.trace.spans(view.run_id)).filter((s) => s.kind === "approval_wait");
  expect(waits.map((w) => [w.name, w.status])).toEqual([["approval_wait rollback_deployment", "ok"]]);
}
