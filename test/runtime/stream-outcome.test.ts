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
