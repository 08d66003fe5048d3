/**
 * Which graphs need no LangChain callback handler to be traced: agentrt's own nodes (the model turn and the tool
 * fan-out of `defineAgent`) report their model and tool calls through hooks themselves. A handler on a run's config
 * costs even when it ignores everything: LangChain then opens a callback run (ids, child managers) for every node,
 * edge and write of the graph.
 * @module
 */

const OWN_NODES = new WeakSet<object>();
const verdicts = new WeakMap<object, boolean>();

/** Marks `fn` as an agentrt node that reports its own model and tool calls; returns it. */
export function ownNode<T extends object>(fn: T): T {
  OWN_NODES.add(fn);
  return fn;
}

interface Compiled {
  builder?: { nodes?: Record<string, { runnable?: unknown }> };
}

function decide(graph: Compiled): boolean {
  const nodes = graph.builder?.nodes;
  if (nodes === undefined) return false;
  return Object.values(nodes).every(({ runnable }) => {
    if (runnable === null || typeof runnable !== "object") return false;
    const func = (runnable as { func?: unknown }).func;
    // A function node (LangGraph wraps it in a RunnableCallable): ours only if marked; a subgraph: all of its nodes.
    if (typeof func === "function") return OWN_NODES.has(func);
    return reportsOwnCalls(runnable);
  });
}

/**
 * True when every node of a compiled graph, subgraphs included, is an agentrt node: its model and tool calls reach
 * the hooks without a callback handler. False for anything else (a foreign agent, a custom node, an unknown shape).
 */
export function reportsOwnCalls(graph: unknown): boolean {
  if (graph === null || typeof graph !== "object") return false;
  let verdict = verdicts.get(graph);
  if (verdict === undefined) verdicts.set(graph, (verdict = decide(graph)));
  return verdict;
}
