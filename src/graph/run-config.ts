/**
 * What a caller passes to `graph.invoke` / `graph.stream` of an agent graph.
 * Primitive ids go in `configurable` (LangGraph persists and propagates
 * them); live handles (the database, hooks) go in `context`, which LangGraph
 * hands to nodes for one invocation and never writes into a checkpoint.
 * @module
 */
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { RunDatabase } from "../db/index.js";
import type { ToolLedger } from "../ledger/ledger.js";
import type { SharedToolLimits } from "../resilience/index.js";
import type { AgentHooks } from "./hooks.js";
import type { RunGuard } from "./run-guard.js";

/** Primitive keys agentrt reads from `config.configurable`. */
export interface AgentConfigurable {
  /** LangGraph thread; required with a checkpointer. */
  thread_id: string;
  /** The agentrt run id; part of every idempotency key. @default thread_id */
  run_id?: string;
  /** The user the run acts for: policy subject and "$requester". @default "anonymous" */
  user?: string;
  /** Comma-separated roles of that user, e.g. "sre,oncall". @default "" */
  roles?: string;
  /** Version part of idempotency keys; bump to redo an action deliberately. @default 1 */
  action_version?: number;
}

/**
 * Non-serialisable per-invocation values, passed as `config.context`.
 * A type alias (not an interface) so it fits LangGraph's `Record<string, any>` context.
 */
export type AgentRunContext = {
  /** The run database handed to tools as `ctx.db`. @default undefined */
  db?: RunDatabase;
  /** The side-effect ledger of `db` (the runtime passes the one of its backend). @default the ledger on a SQLite `db` */
  ledger?: ToolLedger;
  /** Limits and breakers of tools that declare them, shared with other processes (the runtime on PostgreSQL). @default this process's */
  sharedLimits?: SharedToolLimits;
  /** Observers for this invocation, called in addition to the agent's own hooks. @default {} */
  hooks?: AgentHooks;
  /** Aborts in-flight tool calls (run cancel). @default undefined */
  signal?: AbortSignal;
  /** Checks before each model call and tool attempt (budgets, deadline, RETRYING). @default none */
  guard?: RunGuard;
};

/**
 * The config shape for agent graphs.
 * @example
 * await graph.invoke(input, {
 *   configurable: { thread_id: "t1", run_id: "run_01", user: "alice", roles: "sre" },
 *   context: { db },
 * } satisfies AgentRunConfig);
 */
export interface AgentRunConfig {
  configurable: AgentConfigurable & Record<string, unknown>;
  context?: AgentRunContext;
  /** LangGraph's step cap; agents need about 2 × maxTurns + 2. @default 25 */
  recursionLimit?: number;
}

/** The run scope a node resolves from its config. */
export interface RunScope {
  runId: string;
  threadId: string;
  user: string;
  roles: string[];
  actionVersion: number;
  db: RunDatabase | undefined;
  ledger: ToolLedger | undefined;
  sharedLimits: SharedToolLimits | undefined;
  hooks: AgentHooks;
  signal: AbortSignal | undefined;
  guard: RunGuard | undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

// AbortSignal.any per pair, not per call: every node and tool branch of a run resolves its scope (about 20 times a
// run), and each AbortSignal.any registers listeners on both inputs. Weak keys: nothing outlives the run's signals.
const combined = new WeakMap<AbortSignal, WeakMap<AbortSignal, AbortSignal>>();

function eitherSignal(run: AbortSignal, graph: AbortSignal): AbortSignal {
  let byGraph = combined.get(run);
  if (byGraph === undefined) combined.set(run, (byGraph = new WeakMap()));
  let signal = byGraph.get(graph);
  if (signal === undefined) byGraph.set(graph, (signal = AbortSignal.any([run, graph])));
  return signal;
}

/** Reads the run scope from a node's config; run id falls back to thread id (e.g. under LangGraph Studio). */
export function resolveRunScope(config: LangGraphRunnableConfig | undefined): RunScope {
  const conf = (config?.configurable ?? {}) as Record<string, unknown>;
  const context = (config?.context ?? {}) as AgentRunContext;
  const threadId = str(conf.thread_id) ?? "no-thread";
  const version = Number(conf.action_version ?? 1);
  return {
    runId: str(conf.run_id) ?? threadId,
    threadId,
    user: str(conf.user) ?? "anonymous",
    roles: (str(conf.roles) ?? "").split(",").map((r) => r.trim()).filter(Boolean),
    actionVersion: Number.isInteger(version) && version > 0 ? version : 1,
    db: context.db,
    ledger: context.ledger,
    sharedLimits: context.sharedLimits,
    hooks: context.hooks ?? {},
    // LangGraph's own run signal (e.g. a Studio cancel) also stops tool calls.
    signal: context.signal && config?.signal ? eitherSignal(context.signal, config.signal) : context.signal ?? config?.signal,
    guard: context.guard,
  };
}
