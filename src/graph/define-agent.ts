/**
 * `defineAgent`: the model-turn and tool fan-out nodes assembled into a plain
 * LangGraph `StateGraph` — compile it with or without a checkpointer.
 * @module
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { END, START, StateGraph } from "@langchain/langgraph";
import { defaultPolicy, whenTainted, type Policy } from "../policy/policy.js";
import type { AgentTool } from "../tools/define-tool.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ContextOptions } from "./context-budget.js";
import type { AgentHooks } from "./hooks.js";
import { createModelTurnNode, type ToolSelection } from "./model-turn.js";
import { AgentState } from "./state.js";
import type { ToolExecutor } from "../tools/execute-tool.js";
import { createToolNode, routeToolCalls, type ToolTask } from "./fanout/tool-fanout.js";
import { markTaint } from "./context-taint.js";
import { ownNode } from "./own-nodes.js";

/** Limits that stop an agent from looping forever. */
export interface AgentLimits {
  /** Model turns per run. @default 10 */
  maxTurns?: number;
}

/** Options of {@link defineAgent}. */
export interface DefineAgentOptions {
  model: BaseChatModel;
  // The contract is per-tool generic; the registry only needs the erased shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: readonly AgentTool<any, any>[];
  /** @default risk-based defaults (destructive tools need the requester's approval) */
  policy?: Policy;
  /** @default { maxTurns: 10 } */
  limits?: AgentLimits;
  /** System instructions. @default none */
  instructions?: string;
  /** Observers of every run of this agent; per-run hooks go in `config.context.hooks`. @default {} */
  hooks?: AgentHooks;
  /** Offer only the `max` tools most relevant to the request (plus `pinned`). @default all tools every turn */
  toolSelection?: ToolSelection;
  /** Token budget per model call: old turns trimmed, large tool results cut (full text in the run's workspace). @default no budget */
  context?: ContextOptions;
  /** Replaces the executor, e.g. to add the ledger. @default createResilientExecutor() */
  execute?: ToolExecutor;
  /**
   * A node run before the first model turn: START is wired to it instead of the model. Add it
   * yourself with `.addNode(entry, fn)` and an edge (or conditional edges) from it to `AGENT_NODES.model`.
   * @default none (START → model)
   */
  entry?: string;
}

const DEFAULT_MAX_TURNS = 10;

/** Node names of an agent graph, for users who extend or draw it. */
export const AGENT_NODES = { model: "model", tools: "tools" } as const;

/**
 * Builds the agent graph: START → model (or your `entry` node) → (one `tools` branch per
 * call, in parallel) → model … → END. Call `.compile({ checkpointer })` on the result.
 * @example
 * const graph = defineAgent({ model, tools: [getWeather] }).compile({ checkpointer: new MemorySaver() });
 * const out = await graph.invoke({ messages: [new HumanMessage("Weather in Paris?")] },
 *   { configurable: { thread_id: "t1" } });
 * console.log(out.result);
 */
export function defineAgent(options: DefineAgentOptions) {
  const registry = ToolRegistry.create(options.tools);
  const modelTurn = createModelTurnNode({
    model: options.model, registry, instructions: options.instructions,
    maxTurns: options.limits?.maxTurns, hooks: options.hooks, toolSelection: options.toolSelection, policy: options.policy,
    context: options.context,
  });
  const policy = options.policy ?? defaultPolicy;
  const plainToolNode = createToolNode({ registry, policy, execute: options.execute, hooks: options.hooks });
  // Taint is decided when the calls are routed and travels in the checkpointed
  // task, so a resumed branch is judged exactly as when it first ran.
  const taintedToolNode = policy.taint
    ? createToolNode({ registry, policy: whenTainted(policy), execute: options.execute, hooks: options.hooks })
    : plainToolNode;
  const toolNode = ownNode((task: ToolTask & { tainted?: boolean }, config?: Parameters<typeof plainToolNode>[1]) =>
    (task.tainted ? taintedToolNode : plainToolNode)(task, config));
  const route = routeToolCalls(AGENT_NODES.tools);
  const routeMarked: typeof route = ownNode((state, config) => markTaint(route(state, config), state.messages));
  const graph = new StateGraph(AgentState)
    .addNode(AGENT_NODES.model, ownNode(modelTurn))
    // Branch input is a ToolTask from Send, not the graph state.
    .addNode(AGENT_NODES.tools, toolNode as unknown as typeof modelTurn)
    // `entry` is added by the caller after defineAgent; compile() rejects the graph if it never is.
    .addEdge(START, (options.entry ?? AGENT_NODES.model) as typeof AGENT_NODES.model)
    .addConditionalEdges(AGENT_NODES.model, routeMarked, [AGENT_NODES.tools, END])
    .addEdge(AGENT_NODES.tools, AGENT_NODES.model);
  // Two supersteps per turn plus the final one: without this, a maxTurns above
  // ~11 would end in LangGraph's recursion error instead of our clear stop.
  const recursionLimit = 2 * (options.limits?.maxTurns ?? DEFAULT_MAX_TURNS) + 3;
  if (recursionLimit > 25) {
    const compile = graph.compile.bind(graph);
    graph.compile = ((compileOptions) => compile(compileOptions).withConfig({ recursionLimit }));
  }
  return graph;
}
