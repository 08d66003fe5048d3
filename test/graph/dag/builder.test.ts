import { Command, END, MemorySaver, START, interrupt } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { DagCompileError, DagStateConflictError, defineDag } from "../../../src/graph/dag/index.js";
import { ConcurrencyLimiter } from "../../../src/resilience/concurrency.js";
import { TransientToolError } from "../../../src/errors.js";

interface Span {
  start: number;
  end: number;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records start/end of each node so tests assert order and overlap, never durations. */
function recorder() {
  const spans = new Map<string, Span>();
  let clock = 0;
  const tick = () => ++clock;
  const timed = (name: string, ms: number, update: Record<string, unknown> = {}) => async () => {
    const span = { start: tick(), end: Infinity };
    spans.set(name, span);
    await pause(ms);
    span.end = tick();
    return update;
  };
  const span = (name: string) => spans.get(name) as Span;
  return { spans, timed, span, tick };
}

interface S {
  log: string[];
  total: number;
}
const state = { log: { default: () => [] as string[], reducer: (a: string[], b: string[]) => [...a, ...b] }, total: { default: () => 0 } };

describe("defineDag scheduling", () => {
  it("starts E as soon as C is done, while the slow B still runs (A → (B ∥ C → E) → D)", async () => {
    const r = recorder();
    let eEnded = (): void => undefined;
    const eDone = new Promise<void>((resolve) => (eEnded = resolve));
    // B is slow: it ends only after E has ended (or after 5 s). Under a superstep barrier E would wait for B instead.
    const slowB = async () => {
      const span = { start: r.tick(), end: Infinity };
      r.spans.set("B", span);
      await Promise.race([eDone, pause(5000)]);
      span.end = r.tick();
      return { log: ["B"] };
    };
    const graph = defineDag<S>({ state })
      .node("A", r.timed("A", 5, { log: ["A"] }))
      .node("B", slowB, { after: ["A"] })
      .node("C", r.timed("C", 5, { log: ["C"] }), { after: ["A"] })
      .node("E", async () => {
        const update = await r.timed("E", 5, { log: ["E"] })();
        eEnded();
        return update;
      }, { after: ["C"] })
      .node("D", r.timed("D", 5, { log: ["D"], total: 1 }), { after: ["B", "E"] })
      .compile();
    const out = await graph.invoke({});
    expect(r.span("E").start).toBeGreaterThan(r.span("C").end);
    expect(r.span("E").end).toBeLessThan(r.span("B").end);
    expect(r.span("B").start).toBeLessThan(r.span("C").end);
    expect(r.span("D").start).toBeGreaterThan(Math.max(r.span("B").end, r.span("E").end));
    // Updates merge in the fixed topological order, whatever order the nodes finished in.
    expect(out).toEqual({ log: ["A", "B", "C", "E", "D"], total: 1 });
  });

  it("gives each node the state its ancestors wrote", async () => {
    const seen: Record<string, unknown> = {};
    const graph = defineDag<{ x: number; y: number; z: number }>({ state: { x: {}, y: {}, z: {} } })
      .node("X", (s) => ({ x: s.x + 1 }))
      .node("Y", (s) => {
        seen.Y = { ...s };
        return { y: s.x * 10 };
      }, { after: ["X"] })
      .node("Z", (s) => ({ z: s.y + s.x }))
      .edge(START, "X")
      .edge(START, "Z")
      .edge("Y", "Z")
      .edge("Z", END)
      .compile();
    expect(await graph.invoke({ x: 1, y: 0, z: 0 })).toEqual({ x: 2, y: 20, z: 22 });
    expect(seen.Y).toEqual({ x: 2, y: 0, z: 0 });
  });
});

describe("defineDag validation", () => {
  const noop = () => ({});
  const problem = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(DagCompileError);
      const e = error as DagCompileError;
      expect(e.code).toBe("DAG_INVALID");
      return { problem: e.problem, nodes: e.nodes, message: e.message, details: e.details };
    }
    throw new Error("expected a DagCompileError");
  };

  it("names an unknown dependency", () => {
    const p = problem(() => defineDag<S>({ state }).node("A", noop, { after: ["ghost"] }).compile());
    expect(p).toMatchObject({ problem: "unknown_node", nodes: ["A", "ghost"] });
  });

  it("names the nodes of a cycle in order", () => {
    const p = problem(() =>
      defineDag<S>({ state })
        .node("root", noop)
        .node("A", noop, { after: ["root", "C"] })
        .node("B", noop, { after: ["A"] })
        .node("C", noop, { after: ["B"] })
        .compile(),
    );
    expect(p.problem).toBe("cycle");
    expect(p.nodes.length).toBe(4);
    expect(p.nodes[0]).toBe(p.nodes[3]);
    expect(new Set(p.nodes)).toEqual(new Set(["A", "B", "C"]));
    expect(p.message).toMatch(/cycle: (A|B|C) → /);
  });

  it("names nodes not reachable from START once entries are explicit", () => {
    const p = problem(() =>
      defineDag<S>({ state }).node("A", noop).node("B", noop).node("C", noop, { after: ["B"] }).edge(START, "A").compile(),
    );
    expect(p).toMatchObject({ problem: "unreachable", nodes: ["B", "C"] });
  });

  it("refuses two unordered writers of a key without a reducer, but not ordered ones or reduced keys", () => {
    const p = problem(() =>
      defineDag<S>({ state })
        .node("A", noop, { writes: ["total"] })
        .node("B", noop, { writes: ["total", "log"] })
        .node("C", noop, { writes: ["log"] })
        .compile(),
    );
    expect(p).toMatchObject({ problem: "write_conflict", nodes: ["A", "B"], details: { key: "total" } });
    expect(() =>
      defineDag<S>({ state })
        .node("A", noop, { writes: ["total", "log"] })
        .node("B", noop, { after: ["A"], writes: ["total", "log"] })
        .node("C", noop, { writes: ["log"] })
        .compile(),
    ).not.toThrow();
  });

  it("catches an undeclared conflicting write at run time", async () => {
    const graph = defineDag<S>({ state }).node("A", () => ({ total: 1 })).node("B", () => ({ total: 2 })).compile();
    await expect(graph.invoke({})).rejects.toBeInstanceOf(DagStateConflictError);
  });

  it("refuses a node declared twice", () => {
    expect(problem(() => defineDag<S>({ state }).node("A", noop).node("A", noop))).toMatchObject({ problem: "duplicate_node" });
  });
});

describe("defineDag drawing", () => {
  it("draws the declared DAG, not one entrypoint node", async () => {
    const dag = defineDag<S>({ state })
      .node("A", () => ({}))
      .node("B", () => ({}), { after: ["A"] })
      .node("C", () => ({}), { after: ["A"] })
      .node("D", () => ({}), { after: ["B", "C"] });
    const graph = dag.compile();
    const drawing = await graph.getGraphAsync({});
    expect(Object.keys(drawing.nodes).sort()).toEqual(["A", "B", "C", "D", "__end__", "__start__"]);
    const edges = drawing.edges.map((e) => `${e.source}->${e.target}`).sort();
    expect(edges).toEqual(["A->B", "A->C", "B->D", "C->D", "D->__end__", "__start__->A"]);
    expect(dag.drawMermaid()).toContain("B --> D");
    expect(graph.getGraph().drawMermaid()).toBe(dag.drawMermaid());
  });

  it("keeps drawing the declared DAG on a copy made by withConfig (the runtime binds each graph that way)", async () => {
    const dag = defineDag<S>({ state }).node("A", () => ({})).node("B", () => ({}), { after: ["A"] });
    const copy = dag.compile().withConfig({ configurable: { x: 1 } });
    expect((await copy.getGraphAsync({})).drawMermaid()).toBe(dag.drawMermaid());
    expect(copy.getGraph().drawMermaid()).toBe(dag.drawMermaid());
    expect(copy.withConfig({}).getGraph().drawMermaid()).toBe(dag.drawMermaid());
  });
});

describe("defineDag retries, caps and interrupts", () => {
  it("retries a failing node while an independent branch keeps running", async () => {
    const r = recorder();
    let attempts = 0;
    let steadyEnded = (): void => undefined;
    const steadyDone = new Promise<void>((resolve) => (steadyEnded = resolve));
    const graph = defineDag<S>({ state })
      .node("flaky", async (_s, ctx) => {
        attempts = ctx.attempt;
        await r.timed(`flaky${ctx.attempt}`, 1)();
        // Attempt 2 fails only once the independent chain has finished: a retry that stalled it would never get here.
        if (ctx.attempt === 2) await steadyDone;
        if (ctx.attempt < 3) throw new TransientToolError("TOOL_FAILED", "503");
        return { log: ["flaky"] };
      }, { retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 1 } })
      .node("steady1", r.timed("steady1", 5, { log: ["s1"] }))
      .node("steady2", async () => {
        const update = await r.timed("steady2", 5, { log: ["s2"] })();
        steadyEnded();
        return update;
      }, { after: ["steady1"] })
      .compile();
    const out = await graph.invoke({});
    expect(attempts).toBe(3);
    expect(out.log).toEqual(["flaky", "s1", "s2"]);
    expect(r.span("flaky2").start).toBeLessThan(r.span("steady2").end);
    expect(r.span("steady2").end).toBeLessThan(r.span("flaky3").start);
  });

  it("holds the per-run cap and a shared limiter", async () => {
    let active = 0;
    let peak = 0;
    let cap = 2;
    let opened = (): void => undefined;
    let gate = Promise.resolve();
    const reset = (): void => {
      gate = new Promise<void>((resolve) => (opened = resolve));
    };
    // Holders wait until `cap` of them are in at once, so the peak reaches the cap whatever the machine's timing.
    const work = async () => {
      peak = Math.max(peak, ++active);
      if (active >= cap) opened();
      await gate;
      await pause(1);
      active--;
      return {};
    };
    const dag = defineDag<S>({ state });
    for (let i = 0; i < 6; i++) dag.node(`n${i}`, work);
    reset();
    await dag.compile({ maxConcurrency: 2 }).invoke({});
    expect(peak).toBe(2);
    peak = 0;
    cap = 1;
    reset();
    await dag.compile({ limiter: new ConcurrencyLimiter(1), maxConcurrency: 4 }).invoke({});
    expect(peak).toBe(1);
  });

  it("pauses only the branch that interrupts; resume runs it and its descendants, not the rest", async () => {
    const runs: string[] = [];
    const graph = defineDag<S>({ state })
      .node("A", () => (runs.push("A"), { log: ["A"] }))
      .node("ask", () => {
        runs.push("ask");
        const answer = interrupt<string, string>("approve?");
        return { log: [`ask:${answer}`] };
      }, { after: ["A"] })
      .node("after_ask", () => (runs.push("after_ask"), { log: ["after_ask"] }), { after: ["ask"] })
      .node("other", () => (runs.push("other"), { log: ["other"] }), { after: ["A"] })
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t1" } };
    await graph.invoke({}, config);
    const paused = await graph.getState(config);
    expect(paused.tasks.flatMap((t) => t.interrupts).map((i) => i.value)).toEqual(["approve?"]);
    expect(runs.sort()).toEqual(["A", "ask", "other"]);
    runs.length = 0;
    const out = await graph.invoke(new Command({ resume: "yes" }), config);
    expect(runs.sort()).toEqual(["after_ask", "ask"]);
    expect(out).toEqual({ log: ["A", "ask:yes", "other", "after_ask"], total: 0 });
  });
});
