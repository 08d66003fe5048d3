// Every shipped dataset (graphs/datasets/<graph>.jsonl) through the harness, in-process and offline: all cases pass.
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parseDataset, renderReport, runDataset } from "../../src/eval/index.js";

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const CONFIG = root("langgraph.json");
const listed = Object.keys((JSON.parse(readFileSync(CONFIG, "utf8")) as { graphs: Record<string, string> }).graphs);
const SCENARIOS = ["ops_rollback", "order_delay", "city_weather", "order_check", "ticket_rag", "ops_copilot", "order_pipeline"];
const graphs = readdirSync(root("graphs/datasets")).filter((f) => f.endsWith(".jsonl")).map((f) => f.slice(0, -".jsonl".length));
const env = { ...process.env, AGENTRT_SIM_LATENCY_MS: "0", AGENTRT_SIM_FAULTS: "" };

beforeAll(() => {
  delete process.env.OPENAI_API_KEY;
});

describe("shipped eval datasets", () => {
  it("has a dataset per scenario graph (each for a graph langgraph.json lists), each with ≥ 10 cases, two or more with faults", () => {
    expect(graphs).toEqual(expect.arrayContaining(SCENARIOS));
    for (const graph of graphs) expect(listed, `${graph}.jsonl names no graph of langgraph.json`).toContain(graph);
    for (const graph of graphs) {
      const cases = parseDataset(readFileSync(root(`graphs/datasets/${graph}.jsonl`), "utf8"), graph).map((c) => c.case);
      expect(cases.length, graph).toBeGreaterThanOrEqual(10);
      expect(cases.filter((c) => c.env?.AGENTRT_SIM_FAULTS !== undefined).length, graph).toBeGreaterThanOrEqual(2);
    }
  });

  it.each(graphs)("%s: every case passes offline", async (graph) => {
    const cases = parseDataset(readFileSync(root(`graphs/datasets/${graph}.jsonl`), "utf8"), graph);
    const report = await runDataset(cases, { graph, config: CONFIG, env });
    if (!report.summary.ok) expect.fail(renderReport(report));
    expect(report.summary.passed).toBe(cases.length);
    expect(report.summary.evaluators.error_recovery.applicable).toBeGreaterThanOrEqual(2);
  });
});
