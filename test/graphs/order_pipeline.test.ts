// order_pipeline: the order check as a declared DAG (defineDag), run through the real runtime on a temp SQLite file.
// get_order → (check_inventory ∥ check_logistics) → assess → answer: no model, the branches overlap in the trace.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { graph } from "../../graphs/order_pipeline.js";
import { openScenarioRuntime, withSimEnv, type ScenarioRuntime } from "./scenario-runtime.js";

let rt: ScenarioRuntime;
beforeEach(() => {
  rt = openScenarioRuntime();
});
afterEach(() => rt.close());

const submit = (message: string, graphId = "order_pipeline") => rt.runtime.submit({ graph: graphId, message, user: "alice" });

/** The declared DAG's edges, as Mermaid draws them ("a --> b"), of a drawable graph. */
async function edgesOf(drawable: { getGraphAsync(config: object): Promise<{ drawMermaid(): string }> }): Promise<string[]> {
  const mermaid = (await drawable.getGraphAsync({})).drawMermaid();
  return [...mermaid.matchAll(/^\s*(\w+) -->\s*(\w+);/gm)].map((m) => `${m[1]} --> ${m[2]}`).sort();
}

const DAG_EDGES = [
  "__start__ --> get_order",
  "assess --> answer",
  "answer --> __end__",
  "check_inventory --> assess",
  "check_logistics --> assess",
  "get_order --> check_inventory",
  "get_order --> check_logistics",
].sort();

describe("order_pipeline", () => {
  it("is drawn as its declared DAG, by the module's graph (Studio) and by the runtime's bound copy (agentrt graph, /ui)", async () => {
    expect(await edgesOf(graph)).toEqual(DAG_EDGES);
    expect(await edgesOf(await rt.runtime.registry.load("order_pipeline"))).toEqual(DAG_EDGES);
  });

  it("runs the checks in parallel once the order is read: their spans overlap in the trace", async () => {
    // Long enough that a loaded machine cannot finish one check before the other starts unless they run in turn.
    const run = await withSimEnv({ AGENTRT_SIM_LATENCY_MS: "300" }, () => submit("Check order 10086"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Short on stock: Thermal receipt printer \(18 of 40 available\)/);
    expect(run.result).toMatch(/held at hub/);
    expect(run.result).toMatch(/Assessment: at risk/);
    expect(run.usage.model_calls).toBe(0);
    expect((await rt.world()).calls).toEqual({ get_order: 1, check_inventory: 1, check_logistics: 1 });
    const spans = (await rt.runtime.trace.spans(run.run_id)).filter((s) => s.kind === "tool_call");
    const span = (tool: string) => spans.find((s) => s.tool === tool)!;
    const [order, inventory, logistics] = [span("get_order"), span("check_inventory"), span("check_logistics")];
    expect(spans.map((s) => s.tool).sort()).toEqual(["check_inventory", "check_logistics", "get_order"]);
    expect(inventory.startMs).toBeGreaterThanOrEqual(order.endMs!);
    expect(logistics.startMs).toBeGreaterThanOrEqual(order.endMs!);
    expect(inventory.startMs).toBeLessThan(logistics.endMs!);
    expect(logistics.startMs).toBeLessThan(inventory.endMs!);
    // No model turn: the tool spans hang directly under the run, not under a "step".
    const root = (await rt.runtime.trace.spans(run.run_id)).find((s) => s.parentId === null)!;
    expect(spans.every((s) => s.parentId === root.spanId)).toBe(true);
  });

  it("gives the same answer as the order_check agent", async () => {
    for (const message of ["Check order 10086", "How is order 20001 doing?", "check #10087 for me"]) {
      const [pipeline, agent] = [await submit(message), await submit(message, "order_check")];
      expect(pipeline.result, message).toBe(agent.result);
    }
  });

  it("says so when there is no such order, without checking stock or shipment", async () => {
    const run = await submit("Check order 99999");
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/There is no order 99999/);
    expect((await rt.world()).calls).toEqual({ get_order: 1 });
  });

  it("asks for a missing order number (WAITING_INPUT) and continues with the answer", async () => {
    const run = await submit("Is my order on track?");
    expect(run.status).toBe("WAITING_INPUT");
    expect(run.input_requests[0]?.question).toMatch(/Which order should I check\?/);
    const done = await rt.runtime.provideInput(run.run_id, { text: "It is 20001" });
    expect(done.status).toBe("SUCCEEDED");
    expect(done.result).toMatch(/Order 20001[\s\S]*Assessment: on track\./);
  });

  it("retries a check that fails transiently, inside its own branch", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "check_logistics:1" }, () => submit("Check order 10086"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).not.toMatch(/could not be tracked/);
    expect((await rt.world())).toMatchObject({ calls: { check_inventory: 1, check_logistics: 1 }, failures: { check_logistics: 1 } });
  });

  it("still answers, honestly, when a check keeps failing", async () => {
    const run = await withSimEnv({ AGENTRT_SIM_FAULTS: "check_inventory:9" }, () => submit("Check order 20001"));
    expect(run.status).toBe("SUCCEEDED");
    expect(run.result).toMatch(/Stock could not be checked \(simulated transient fault/);
    expect(run.result).toMatch(/not every check succeeded/);
  });
});
