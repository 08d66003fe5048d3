/** The agent state fits LangGraph's own schemas: its messages channel is LangGraph's MessagesDeltaValue. */
import { MessagesDeltaValue, StateGraph, StateSchema } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { AgentState } from "../../src/graph/state.js";

describe("AgentState", () => {
  it("combines with a schema naming LangGraph's MessagesDeltaValue (the same messages channel)", () => {
    const input = new StateSchema({ messages: MessagesDeltaValue });
    const graph = new StateGraph(AgentState, { input })
      .addNode("echo", () => ({}))
      .addEdge("__start__", "echo")
      .compile();
    expect(Object.keys(graph.channels)).toContain("messages");
  });
});
