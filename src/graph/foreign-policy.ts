/**
 * agentrt's policy for a foreign agent's approvals: `humanInTheLoopMiddleware` decides which calls pause; the
 * policy attached here decides who may approve them and what they may answer (see `foreignPendingActions`).
 * Kept beside the graph's builder, which every copy of a compiled graph (`withConfig`, the registry's binding) shares.
 * @module
 */
import type { Policy } from "../policy/policy.js";

const policies = new WeakMap<object, Policy>();

function builderOf(graph: unknown): object | undefined {
  // A compiled graph has its builder; LangChain's ReactAgent (createAgent) hands out its compiled graph's.
  const builder = (graph as { builder?: unknown } | null)?.builder;
  return typeof builder === "object" && builder !== null ? builder : undefined;
}

/**
 * Attaches agentrt's approval policy to a foreign graph (a compiled LangGraph graph or a `createAgent` agent) and
 * returns the graph. Its tools are judged as "destructive" tools with no tags: name them in the policy's rules.
 * @example
 * export const graph = withApprovalPolicy(agent, definePolicy({ rules: [{ tools: ["send_email"], effect: "approve", approvers: ["role:comms"] }] }));
 */
export function withApprovalPolicy<G>(graph: G, policy: Policy): G {
  const builder = builderOf(graph);
  if (builder === undefined) throw new TypeError("withApprovalPolicy: not a compiled LangGraph graph or a createAgent agent");
  policies.set(builder, policy);
  return graph;
}

/** The policy attached to a graph with {@link withApprovalPolicy}, if any. */
export function approvalPolicyOf(graph: unknown): Policy | undefined {
  const builder = builderOf(graph);
  return builder === undefined ? undefined : policies.get(builder);
}
