import { describe, expect, it } from "vitest";
import { StreamOutcome } from "../../src/runtime/stream-outcome.js";

describe("StreamOutcome", () => {
  it("settles on the last values chunk when no interrupt was streamed", () => {
    const watched = new StreamOutcome({});
    watched.observe(["values", { n: 1 }]);
    watched.observe(["updates", { node: { n: 2 } }]);
    watched.observe(["values", { n: 2 }]);
    expect(watched.settled()).toEqual({ values: { n: 2 }, tasks: [], next: [] });
  });

  it("defers to the checkpoint after an interrupt, without values, or with static breakpoints", () => {
    const interrupted = new StreamOutcome({});
    interrupted.observe(["values", { n: 1 }]);
    interrupted.observe(["updates", { __interrupt__: [{ value: "?" }] }]);
    expect(interrupted.settled()).toBeUndefined();
    // LangGraph streams the interrupt as a values chunk too; with "updates" left out, that one must suffice.
    const valuesOnly = new StreamOutcome({});
    valuesOnly.observe(["values", { n: 1 }]);
    valuesOnly.observe(["values", { __interrupt__: [{ value: "?" }] }]);
    expect(valuesOnly.settled()).toBeUndefined();
    expect(new StreamOutcome({}).settled()).toBeUndefined();
    for (const graph of [{ interruptBefore: ["b"] }, { interruptAfter: "*" }]) {
      const watched = new StreamOutcome(graph);
      watched.observe(["values", { n: 1 }]);
      expect(watched.settled()).toBeUndefined();
    }
  });

  it("ignores subgraph chunks and other modes", () => {
    const watched = new StreamOutcome({ interruptBefore: [] });
    expect(watched.observe(["values", { n: 1 }])).toBe("values");
    expect(watched.observe([["sub:1"], "values", { n: 99 }])).toBe("values");
    expect(watched.observe("not a chunk")).toBeUndefined();
    watched.observe(["messages", [{ content: "hi" }, {}]]);
    watched.observe(["updates", null]);
    expect(watched.settled()?.values).toEqual({ n: 1 });
  });
});

describe("StreamOutcome on LangGraph's values mode alone (what a run without a stream sink streams)", () => {
  it("sees an interrupt raised in a node, and settles a graph that runs to its end", async () => {
    const { Annotation, END, MemorySaver, START, StateGraph, interrupt } = await import("@langchain/langgraph");
    const State = Annotation.Root({ n: Annotation<number>(), answer: Annotation<string>() });
    const build = (asks: boolean) => new StateGraph(State)
      .addNode("ask", (s: typeof State.State) => (asks ? { answer: String(interrupt({ question: "?" })) } : { n: s.n + 1 }))
      .addEdge(START, "ask").addEdge("ask", END)
      .compile({ checkpointer: new MemorySaver() });
    for (const asks of [true, false]) {
      const graph = build(asks);
      const watched = new StreamOutcome(graph);
      const stream = await graph.stream({ n: 1 }, { configurable: { thread_id: `t${String(asks)}` }, streamMode: [...StreamOutcome.SETTLING_MODES] });
      for await (const chunk of stream) watched.observe(chunk);
      expect(watched.settled()).toEqual(asks ? undefined : { values: { n: 2 }, tasks: [], next: [] });
    }
  });
});
