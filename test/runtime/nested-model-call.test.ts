// A model call made inside an agentrt tool (a summariser, a sub-agent) is reported like a model turn: it counts in
// the run's usage and budgets and has its model_call span, though no agentrt node made it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";

const CONFIG = fileURLToPath(new URL("../fixtures/nested-model/langgraph.json", import.meta.url));
const opened: Runtime[] = [];

function open(): Runtime {
  const rt = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-nested-")), "runs.db"), config: CONFIG });
  opened.push(rt);
  return rt;
}

afterEach(async () => {
  for (const rt of opened.splice(0)) await rt.close();
});

describe("a model call inside an agentrt tool", () => {
  it("counts in usage and is traced as a model call", async () => {
    const rt = open();
    const view = await rt.submit({ graph: "summarising", message: "summarise the report" });
    expect(view).toMatchObject({ status: "SUCCEEDED", result: expect.stringContaining("short summary") });
    // Three model turns and the summariser's two calls.
    expect(view.usage.model_calls).toBe(5);
    const spans = await rt.trace.spans(view.run_id);
    expect(spans.filter((s) => s.kind === "model_call")).toHaveLength(5);
    expect(spans.filter((s) => s.kind === "tool_call").map((s) => [s.name, s.status])).toEqual([["execute_tool summarise", "ok"], ["execute_tool summarise", "ok"]]);
    // Each nested call sits in the step of the turn whose tool made it: no stray "step 1" reopened for turn 2's.
    const stepOf = (s: { parentId: string | null }) => spans.find((p) => p.spanId === s.parentId)?.name;
    expect(spans.filter((s) => s.kind === "step").map((s) => s.name)).toEqual(["step 1", "step 2", "step 3"]);
    expect(spans.filter((s) => s.kind === "model_call").map(stepOf)).toEqual(["step 1", "step 1", "step 2", "step 2", "step 3"]);
  });

  it("is reported once in a graph with a custom node (whose run-wide handler sees it)", async () => {
    const rt = open();
    const view = await rt.submit({ graph: "summarising_with_entry", message: "summarise the report" });
    expect(view).toMatchObject({ status: "SUCCEEDED", usage: { model_calls: 5 } });
    expect((await rt.trace.spans(view.run_id)).filter((s) => s.kind === "model_call")).toHaveLength(5);
  });

  it("is stopped by the run's model-call budget", async () => {
    const rt = open();
    // The first turn and the summariser's call use up two calls: the second turn is refused.
    const view = await rt.submit({ graph: "summarising", message: "summarise the report", budget: { maxModelCalls: 2 } });
    expect(view).toMatchObject({ status: "FAILED", error: { code: "BUDGET_MODEL_CALLS" } });
  });
});
