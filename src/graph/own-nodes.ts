/**
 * Which graphs need no LangChain callback handler to be traced: agentrt's own nodes (the model turn and the tool
 * fan-out of `defineAgent`) report their model and tool calls through hooks themselves. A handler on a run's config
 * costs even when it ignores everything: LangChain then opens a callback run (ids, child managers) for every node,
 * edge and write of the graph.
 * @module
 */

const OWN_NODES = new WeakSet<object>();
const verdicts = new WeakMap<object, boolean>();

/** Marks `fn` as an agentrt node or router that reports its own model and tool calls (or makes none); returns it. */
export function ownNode<T extends object>(fn: T): T {
  OWN_NODES.add(fn);
  return fn;
}

interface Compiled {
  builder?: { nodes?: Record<string, { runnable?: unknown }>; branches?: Record<string, Record<string, { path?: unknown }>> };
}

/** A conditional edge's function (LangGraph coerces it to a RunnableLambda): ours only if marked. */
function ownBranch(path: unknown): boolean {
  const func = (path as { func?: unknown } | null | undefined)?.func;
  return typeof func === "function" && OWN_NODES.has(func);
}

function decide(graph: Compiled): boolean {
  const nodes = graph.builder?.nodes;
  if (nodes === undefined) return false;
  // A router may call a model too (a supervisor's LLM router): one not marked needs the run-wide handler.
  const branches = Object.values(graph.builder?.branches ?? {}).flatMap((bySource) => Object.values(bySource));
  if (!branches.every((branch) => ownBranch(branch.path))) return false;
  return Object.values(nodes).every(({ runnable }) => {
    if (runnable === null || typeof runnable !== "object") return false;
    const func = (runnable as { func?: unknown }).func;
    // A function node (LangGraph wraps it in a RunnableCallable): ours only if marked; a subgraph: all of its nodes.
    if (typeof func === "function") return OWN_NODES.has(func);
    return reportsOwnCalls(runnable);
  });
}

/**
 * True when every node and conditional edge of a compiled graph, subgraphs included, is agentrt's: its model and tool calls reach
 * the hooks without a callback handler. False for anything else (a foreign agent, a custom node, an unknown shape).
 */
export function reportsOwnCalls(graph: unknown): boolean {
  if (graph === null || typeof graph !== "object") return false;
  let verdict = verdicts.get(graph);
  if (verdict === undefined) verdicts.set(graph, (verdict = decide(graph)));
  return verdict;
}
