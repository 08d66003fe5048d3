import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { END, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { AgentState, defineAgent } from "agentrt";
import { ScriptedChatModel } from "agentrt/testing";
import { reportsOwnCalls } from "../../src/graph/own-nodes.js";

const model = () => new ScriptedChatModel({ script: () => ({ content: "done" }) });

describe("reportsOwnCalls", () => {
  // (defineAgent's own router is marked: the first case would be false otherwise.)
  it("is true for a defineAgent graph, its copies and one with a high turn limit", () => {
    const graph = defineAgent({ model: model(), tools: [] }).compile();
    expect(reportsOwnCalls(graph)).toBe(true);
    expect(reportsOwnCalls(graph.withConfig({}))).toBe(true);
    expect(reportsOwnCalls(defineAgent({ model: model(), tools: [], limits: { maxTurns: 30 } }).compile())).toBe(true);
  });

  it("is true for a graph whose subgraph nodes are agentrt agents", () => {
    const specialist = defineAgent({ model: model(), tools: [] }).compile();
    const parent = new StateGraph(AgentState).addNode("specialist", specialist).addEdge(START, "specialist").addEdge("specialist", END).compile();
    expect(reportsOwnCalls(parent)).toBe(true);
  });

  it("is false for a foreign agent, a custom node (an entry node too) and anything not a compiled graph", () => {
    expect(reportsOwnCalls(createReactAgent({ llm: model(), tools: [] }))).toBe(false);
    const withEntry = defineAgent({ model: model(), tools: [], entry: "prepare" }).addNode("prepare", () => ({})).addEdge("prepare", "model").compile();
    expect(reportsOwnCalls(withEntry)).toBe(false);
    const foreignInside = new StateGraph(AgentState).addNode("react", createReactAgent({ llm: model(), tools: [] }))
      .addEdge(START, "react").addEdge("react", END).compile();
    expect(reportsOwnCalls(foreignInside)).toBe(false);
    // A router of its own (a supervisor's, which may call a model) between agentrt agents.
    const agent = defineAgent({ model: model(), tools: [] }).compile();
    const routed = new StateGraph(AgentState).addNode("a", agent).addNode("b", agent)
      .addConditionalEdges(START, () => "a", ["a", "b"]).addEdge("a", END).addEdge("b", END).compile();
    expect(reportsOwnCalls(routed)).toBe(false);
    expect(reportsOwnCalls(undefined)).toBe(false);
    expect(reportsOwnCalls({})).toBe(false);
  });
});
