/**
 * The drawing of a declared DAG: its own nodes and edges, so `agentrt graph`
 * and Studio show what the user declared rather than the single entrypoint
 * node the functional API would draw.
 * @module
 */
import { Graph } from "@langchain/core/runnables/graph";
import { END, START } from "@langchain/langgraph";

/** Builds a drawable graph: START → roots, dependency edges, leaves → END. */
export function drawableDag(order: readonly string[], after: ReadonlyMap<string, readonly string[]>): Graph {
  const graph = new Graph();
  const schema = { name: "state", schema: {} } as never;
  const nodes = new Map([START, ...order, END].map((id) => [id, graph.addNode(schema, id)]));
  const node = (id: string) => nodes.get(id) as ReturnType<Graph["addNode"]>;
  const hasChild = new Set<string>();
  for (const name of order) {
    const deps = after.get(name) ?? [];
    if (deps.length === 0) graph.addEdge(node(START), node(name));
    for (const dep of deps) {
      hasChild.add(dep);
      graph.addEdge(node(dep), node(name));
    }
  }
  for (const name of order) if (!hasChild.has(name)) graph.addEdge(node(name), node(END));
  return graph;
}
