// order_check through the real runtime: get_order, then inventory and logistics in one turn, then the assessment.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { graph } from "../../graphs/order_check.js";
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

describe("order_check", () => {
  it("checks inventory and logistics in the same turn, after the order, and assesses", async () => {
    const run = await submit("Check order 10086");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Short on stock: Thermal receipt printer \(18 of 40 available\)/);
    expect(run.result).toMatch(/held at hub/);
    expect(run.result).toMatch(/Assessment: at risk/);
    expect(run.usage.model_calls).toBe(3);
    expect(await toolTurns(run.thread_id)).toEqual(["check_inventory@2", "check_logistics@2", "get_order@1"]);
    expect(rt.world().calls).toEqual({ get_order: 1, check_inventory: 1, check_logistics: 1 });
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
    expect(rt.world()).toMatchObject({ calls: { check_inventory: 1, check_logistics: 1 }, failures: { check_logistics: 1 } });
    expect(await toolTurns(run.thread_id)).toEqual(["check_inventory@2", "check_logistics@2", "check_logistics@3", "get_order@1"]);
  });

  it("still assesses, honestly, when one branch keeps failing", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "check_inventory:9" }, () => submit("Check order 20001"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Stock could not be checked \(simulated transient fault/);
    expect(run.result).toMatch(/not every check succeeded/);
    expect(rt.world().failures).toEqual({ check_inventory: 3 });
  });
});
