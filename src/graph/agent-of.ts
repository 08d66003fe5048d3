/**
 * Which agent of a multi-agent graph a node belongs to: LangGraph runs a subgraph's nodes under a checkpoint
 * namespace `parent_node:<task>|node:<task>`, so the subgraph node's name (a specialist) names the agent.
 * @module
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";

/** The innermost subgraph node a node runs in (e.g. "deploy_specialist"); undefined for the root graph's own nodes. */
export function agentOf(config: LangGraphRunnableConfig | undefined): string | undefined {
  const ns = config?.configurable?.checkpoint_ns;
  if (typeof ns !== "string" || ns === "") return undefined;
  const segments = ns.split("|");
  // The last segment is the node itself; the one before it is the subgraph node that holds it.
  const holder = segments.at(-2);
  return holder === undefined ? undefined : holder.split(":")[0] || undefined;
}
