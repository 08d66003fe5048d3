/**
 * Graphs langgraph.json may list that are not compiled graphs themselves: LangChain's `createAgent` returns a
 * `ReactAgent` wrapping one. The runtime drives the compiled graph inside, as LangGraph's own server does.
 * @module
 */

/** The compiled graph of a `createAgent` agent; anything else as it is. */
export function compiledGraphOf(exported: unknown): unknown {
  if (exported === null || typeof exported !== "object" || "channels" in exported) return exported;
  const inner = (exported as { graph?: unknown }).graph;
  const compiled = inner !== null && typeof inner === "object" && "channels" in inner &&
    typeof (inner as { withConfig?: unknown }).withConfig === "function";
  return compiled ? inner : exported;
}
