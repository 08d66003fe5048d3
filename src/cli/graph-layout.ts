/**
 * Where each node of a graph goes in the terminal drawing: rows by longest path from the start (a node is
 * drawn below everything that leads to it), loops found by a depth-first walk from `__start__`, and, in each
 * row, nodes ordered near the nodes above them that lead to them.
 * @module
 */

/** A graph as the drawing needs it: node ids and directed edges. */
export interface GraphShape {
  nodes: readonly string[];
  edges: readonly GraphEdge[];
}

/** One edge; a conditional one is taken only when its source chooses it. */
export interface GraphEdge {
  source: string;
  target: string;
  conditional?: boolean;
}

/** The rows, top to bottom, each left to right, and each node's row. */
export interface GraphLayout {
  rows: string[][];
  rowOf: ReadonlyMap<string, number>;
  /** Edges that go back up (loops) or to the node itself: drawn in the margin. */
  backEdges: ReadonlySet<GraphEdge>;
}

/** Lays out `shape` (every edge's ends must be among its nodes). */
export function layoutGraph(shape: GraphShape): GraphLayout {
  const backEdges = findBackEdges(shape);
  const forward = shape.edges.filter((edge) => !backEdges.has(edge));
  const rowOf = longestPathRows(shape.nodes, forward);
  const rows: string[][] = [];
  for (const node of shape.nodes) (rows[rowOf.get(node) ?? 0] ??= []).push(node);
  const dense = rows.filter((row) => row !== undefined);
  orderRows(dense, forward, rowOf);
  return { rows: dense, rowOf, backEdges };
}

/** Edges that close a cycle in a depth-first walk from `__start__` (then from every node not reached). */
function findBackEdges(shape: GraphShape): Set<GraphEdge> {
  const out = new Map<string, GraphEdge[]>();
  for (const edge of shape.edges) out.set(edge.source, [...(out.get(edge.source) ?? []), edge]);
  const state = new Map<string, "open" | "done">();
  const back = new Set<GraphEdge>();
  const visit = (node: string): void => {
    state.set(node, "open");
    for (const edge of out.get(node) ?? []) {
      const seen = state.get(edge.target);
      if (seen === "open") back.add(edge);
      else if (seen === undefined) visit(edge.target);
    }
    state.set(node, "done");
  };
  const roots = shape.nodes.includes("__start__") ? ["__start__", ...shape.nodes] : [...shape.nodes];
  for (const node of roots) if (!state.has(node)) visit(node);
  return back;
}

/** Each node's row: one below the lowest node with an edge to it (edges here form no cycle). */
function longestPathRows(nodes: readonly string[], edges: readonly GraphEdge[]): Map<string, number> {
  const row = new Map<string, number>(nodes.map((node) => [node, 0]));
  const indegree = new Map<string, number>(nodes.map((node) => [node, 0]));
  for (const edge of edges) indegree.set(edge.target, (indegree.get(edge.target) ?? 0) + 1);
  const ready = nodes.filter((node) => indegree.get(node) === 0);
  while (ready.length > 0) {
    const node = ready.shift()!;
    for (const edge of edges.filter((e) => e.source === node)) {
      row.set(edge.target, Math.max(row.get(edge.target) ?? 0, (row.get(node) ?? 0) + 1));
      const left = (indegree.get(edge.target) ?? 0) - 1;
      indegree.set(edge.target, left);
      if (left === 0) ready.push(edge.target);
    }
  }
  // Rows may skip numbers where no node sits; close the gaps.
  const used = [...new Set(row.values())].sort((a, b) => a - b);
  return new Map([...row].map(([node, r]) => [node, used.indexOf(r)]));
}

/** Orders each row by where its nodes' parents sit in the row above (fewer crossings); `__end__` goes last. */
function orderRows(rows: string[][], edges: readonly GraphEdge[], rowOf: ReadonlyMap<string, number>): void {
  for (let r = 1; r < rows.length; r++) {
    const above = rows[r - 1] ?? [];
    const row = rows[r] ?? [];
    const key = new Map(row.map((node, index) => {
      const parents = edges.filter((e) => e.target === node && rowOf.get(e.source) === r - 1).map((e) => above.indexOf(e.source));
      const mean = parents.length === 0 ? index : parents.reduce((a, b) => a + b, 0) / parents.length;
      return [node, node === "__end__" ? Number.POSITIVE_INFINITY : mean];
    }));
    row.sort((a, b) => (key.get(a) ?? 0) - (key.get(b) ?? 0));
  }
}
