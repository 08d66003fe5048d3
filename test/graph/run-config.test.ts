import { describe, expect, it } from "vitest";
import { resolveRunScope } from "../../src/graph/run-config.js";

const configWith = (context: AbortSignal, own: AbortSignal) => ({ configurable: { thread_id: "t" }, context: { signal: context }, signal: own });

describe("resolveRunScope", () => {
  it("combines the run's signal and LangGraph's once per pair: every node of a run gets the same signal", () => {
    const [run, graph] = [new AbortController(), new AbortController()];
    const first = resolveRunScope(configWith(run.signal, graph.signal)).signal;
    const second = resolveRunScope(configWith(run.signal, graph.signal)).signal;
    expect(second).toBe(first);
    expect(resolveRunScope(configWith(run.signal, new AbortController().signal)).signal).not.toBe(first);
  });

  it("aborts the combined signal when either side aborts, with that side's reason", () => {
    const [run, graph] = [new AbortController(), new AbortController()];
    const byRun = resolveRunScope(configWith(run.signal, graph.signal)).signal;
    run.abort(new Error("canceled"));
    expect(byRun?.aborted).toBe(true);
    expect((byRun?.reason as Error).message).toBe("canceled");
    const [run2, graph2] = [new AbortController(), new AbortController()];
    const byGraph = resolveRunScope(configWith(run2.signal, graph2.signal)).signal;
    graph2.abort(new Error("studio stop"));
    expect((byGraph?.reason as Error).message).toBe("studio stop");
  });

  it("uses a single signal as it is", () => {
    const run = new AbortController();
    expect(resolveRunScope({ configurable: { thread_id: "t" }, context: { signal: run.signal } }).signal).toBe(run.signal);
  });
});
