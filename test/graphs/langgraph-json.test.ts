// Every graph langgraph.json names loads exactly as the file names it (path:export), as LangGraph Studio's dev
// server would load it: a compiled graph without a checkpointer of its own, which draws.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { LANGGRAPH_JSON } from "./scenario-runtime.js";

interface DrawableGraph {
  checkpointer?: unknown;
  getGraphAsync(config?: { xray?: boolean }): Promise<{ nodes: Record<string, unknown>; drawMermaid(): string }>;
  getSubgraphsAsync(): AsyncIterable<[string, DrawableGraph]>;
}

const config = JSON.parse(readFileSync(LANGGRAPH_JSON, "utf8")) as { graphs: Record<string, string> };
const AGENT_NODES = ["model", "tools"];
const EXPECTED_NODES: Record<string, string[]> = {
  ops_rollback: AGENT_NODES,
  order_delay: AGENT_NODES,
  city_weather: AGENT_NODES,
  order_check: AGENT_NODES,
  ticket_rag: AGENT_NODES,
  ops_copilot: ["supervisor", "handoff", "deploy_specialist", "comms_specialist"],
  order_pipeline: ["get_order", "check_inventory", "check_logistics", "assess", "answer"],
  // A foreign agent: LangChain's createAgent with humanInTheLoopMiddleware.
  email_assistant: ["model_request", "tools", "HumanInTheLoopMiddleware.after_model"],
};

async function load(spec: string): Promise<DrawableGraph> {
  const colon = spec.lastIndexOf(":");
  const file = resolve(dirname(LANGGRAPH_JSON), spec.slice(0, colon));
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  return module[spec.slice(colon + 1)] as DrawableGraph;
}

describe("langgraph.json", () => {
  it("lists every scenario graph", () => {
    expect(Object.keys(config.graphs).sort()).toEqual(Object.keys(EXPECTED_NODES).sort());
  });

  it.each(Object.entries(config.graphs))("%s (%s) is a compiled graph without a checkpointer that draws", async (id, spec) => {
    expect(spec).toMatch(/^\.\/graphs\/[\w-]+\.ts:graph$/);
    const graph = await load(spec);
    expect(typeof graph.getGraphAsync).toBe("function");
    expect(graph.checkpointer).toBeUndefined();
    for await (const [, subgraph] of graph.getSubgraphsAsync()) expect(subgraph.checkpointer).toBeUndefined();
    const drawing = await graph.getGraphAsync();
    const mermaid = drawing.drawMermaid();
    expect(mermaid.length).toBeGreaterThan(0);
    for (const node of EXPECTED_NODES[id] ?? []) {
      expect(Object.keys(drawing.nodes)).toContain(node);
      expect(mermaid).toContain(node);
    }
  });

  it("draws ops_copilot's specialists as nested subgraphs with xray", async () => {
    const graph = await load(config.graphs.ops_copilot ?? "");
    const mermaid = (await graph.getGraphAsync({ xray: true })).drawMermaid();
    expect(mermaid).toContain("subgraph deploy_specialist");
    expect(mermaid).toContain("subgraph comms_specialist");
    expect(mermaid).toContain("deploy_specialist_tools");
  });
});
