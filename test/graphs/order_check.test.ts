// order_check through the real runtime: the model plans get_order → (inventory ∥ logistics) in one turn, then assesses;
// the ReAct variant (reactGraph, one step per turn) runs beside it for comparison.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolStep } from "agentrt";
import { graph } from "../../graphs/order_check.js";
import { Runtime } from "../../src/runtime/index.js";
import { openScenarioRuntime, withSimEnv, type ScenarioRuntime } from "./scenario-runtime.js";

let rt: ScenarioRuntime;
beforeEach(() => {
  rt = openScenarioRuntime();
});
afterEach(() => rt.close());

const submit = (message: string) => rt.runtime.submit({ graph: "order_check", message, user: "alice" });

/** Each tool step as "tool@turn" (the model turn that asked for it), sorted. */
async function toolTurns(threadId: string): Promise<string[]> {
  return (await rt.steps(graph, threadId)).map((s) => `${s.tool}@${s.turn}`).sort();
}

const stepOf = (steps: ToolStep[], tool: string) => steps.find((s) => s.tool === tool) as ToolStep;

describe("order_check", () => {
  it("plans the whole DAG in one turn: the checks start after the order and overlap, then it assesses", async () => {
    // Each simulated call takes a little while, so the two checks are in flight together.
    const run = await withSimEnv({ AGENTRT_SIM_LATENCY_MS: "30" }, () => submit("Check order 10086"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Short on stock: Thermal receipt printer \(18 of 40 available\)/);
    expect(run.result).toMatch(/held at hub/);
    expect(run.result).toMatch(/Assessment: at risk/);
    expect(run.usage.model_calls).toBe(2);
    expect(await toolTurns(run.thread_id)).toEqual(["check_inventory@1", "check_logistics@1", "get_order@1"]);
    expect((await rt.world()).calls).toEqual({ get_order: 1, check_inventory: 1, check_logistics: 1 });
    const steps = await rt.steps(graph, run.thread_id);
    const [order, inventory, logistics] = ["get_order", "check_inventory", "check_logistics"].map((t) => stepOf(steps, t));
    expect(inventory!.startedAt).toBeGreaterThanOrEqual(order!.endedAt);
    expect(logistics!.startedAt).toBeGreaterThanOrEqual(order!.endedAt);
    expect(inventory!.startedAt).toBeLessThan(logistics!.endedAt);
    expect(logistics!.startedAt).toBeLessThan(inventory!.endedAt);
  });

  it("needs one model call fewer than the ReAct variant, with the same answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-order-check-"));
    const config = join(dir, "langgraph.json");
    const file = fileURLToPath(new URL("../../graphs/order_check.ts", import.meta.url));
    writeFileSync(config, JSON.stringify({ graphs: { order_check: `${file}:graph`, order_check_react: `${file}:reactGraph` } }));
    const runtime = Runtime.open({ db: join(dir, "runs.db"), config });
    try {
      const planned = await runtime.submit({ graph: "order_check", message: "Check order 10086", user: "alice" });
      const react = await runtime.submit({ graph: "order_check_react", message: "Check order 10086", user: "alice" });
      expect([planned.usage.model_calls, react.usage.model_calls]).toEqual([2, 3]);
      expect(planned.result).toBe(react.result);
    } finally {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("assesses an order that is on track", async () => {
    const run = await submit("How is order 20001 doing?");
    expect(run.result).toMatch(/All items are in stock[\s\S]*Assessment: on track\./);
  });

  it("asks again only for the branch that failed transiently", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "check_logistics:1" }, () => submit("Check order 10086"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Assessment: at risk/);
    expect(run.result).not.toMatch(/could not be tracked/);
    expect((await rt.world())).toMatchObject({ calls: { check_inventory: 1, check_logistics: 1 }, failures: { check_logistics: 1 } });
    expect(await toolTurns(run.thread_id)).toEqual(["check_inventory@1", "check_logistics@1", "check_logistics@2", "get_order@1"]);
  });

  it("plans again when get_order failed transiently; the checks that could not run were refused, not called", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "get_order:1" }, () => submit("Check order 20001"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Assessment: on track\./);
    expect(run.usage.model_calls).toBe(3);
    const steps = await rt.steps(graph, run.thread_id);
    expect(steps.filter((s) => s.turn === 1).map((s) => s.error?.code ?? s.status).sort()).toEqual(["SIM_FAULT", "TOOL_REF_FAILED", "TOOL_REF_FAILED"]);
    expect((await rt.world()).calls).toEqual({ get_order: 1, check_inventory: 1, check_logistics: 1 });
  });

  it("still assesses, honestly, when one branch keeps failing", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "check_inventory:9" }, () => submit("Check order 20001"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Stock could not be checked \(simulated transient fault/);
    expect(run.result).toMatch(/not every check succeeded/);
    expect((await rt.world()).failures).toEqual({ check_inventory: 3 });
  });
});
