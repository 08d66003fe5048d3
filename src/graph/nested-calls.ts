/**
 * Model and tool calls made INSIDE an agentrt tool (a summariser's `model.invoke()`, a sub-agent) reach the run's
 * hooks through a {@link ForeignCallHooks} handler attached around the tool's execution only: such a call inherits
 * the config LangChain keeps in AsyncLocalStorage. A graph made only of agentrt nodes runs without a handler on its
 * whole config (see own-nodes.ts), which would make LangChain open a callback run for every node, edge and write.
 * @module
 */
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { ForeignCallHooks } from "./foreign-call-hooks.js";
import type { AgentHooks } from "./hooks.js";

function handlersOf(callbacks: Callbacks | undefined): readonly unknown[] {
  if (callbacks === undefined) return [];
  return Array.isArray(callbacks) ? callbacks : callbacks.handlers;
}

function hasHooks(hooks: AgentHooks): boolean {
  return hooks.onModelCall !== undefined || hooks.onToolCall !== undefined;
}

/**
 * Runs `fn` (a tool's execution) with a handler reporting nested model and tool calls to `hooks` as calls of model
 * turn `turn`; as is when there are no such hooks, or when the run's config already carries one (a graph with
 * foreign or custom nodes: the run-wide handler reports them, and a second would report each twice).
 */
export function withNestedCallHooks<T>(config: LangGraphRunnableConfig | undefined, hooks: AgentHooks, turn: number, fn: () => Promise<T>): Promise<T> {
  if (config === undefined || !hasHooks(hooks)) return fn();
  const callbacks = config.callbacks;
  if (handlersOf(callbacks).some((h) => h instanceof ForeignCallHooks)) return fn();
  // Pinned: a nested call's prompt (a summariser's, a sub-agent's) does not count the run's turns.
  const handler = new ForeignCallHooks(hooks, turn, true);
  const merged: Callbacks = callbacks === undefined ? [handler] : Array.isArray(callbacks) ? [...callbacks, handler] : callbacks.copy([handler]);
  return AsyncLocalStorageProviderSingleton.runWithConfig({ ...config, callbacks: merged }, fn);
}
