/**
 * Graph state read for agentrt's own checks (is an approval still pending, where did the run stop), through the
 * checkpointer's read-only view when it has one: a long thread's message history then comes straight from the
 * saver's cache instead of as the reader's own deep copy (1,000 turns: ~4,000 messages, a copy per read), and a
 * check of tasks alone reads no messages at all. What these return is shared with the cache: read it, never change
 * it, and never hand it to users (their getState gets copies) or to a graph's execution.
 * @module
 */
import { DeltaChannel, messagesDeltaReducer, type StateSnapshot } from "@langchain/langgraph";
import type { ReadOnlyViewOptions } from "../../checkpointers/shared/read-only-checkpoints.js";

/** A graph as the checks read it. */
export interface CheckedGraph {
  getState(config: object): Promise<StateSnapshot>;
  checkpointer?: unknown;
  channels?: Record<string, unknown>;
}

/** What a tasks check sees: no channel values. */
export type TasksSnapshot = Pick<StateSnapshot, "tasks" | "next" | "metadata" | "createdAt" | "config">;

/** LangGraph's key for a checkpointer lent through the config (CONFIG_KEY_CHECKPOINTER, not exported): getState reads it first. */
const LENT_CHECKPOINTER = "__pregel_checkpointer";

interface ViewingSaver {
  readOnlyView(options: ReadOnlyViewOptions): unknown;
}

const hasView = (saver: unknown): saver is ViewingSaver =>
  typeof saver === "object" && saver !== null && typeof (saver as Partial<ViewingSaver>).readOnlyView === "function";

/** Per graph: its channels that may be shared uncopied. */
const appendOnly = new WeakMap<object, ReadonlySet<string>>();

/**
 * The channels of `graph` whose cached values a check may share: DeltaChannels reduced by messagesDeltaReducer, which
 * builds a new list and never changes the list or the messages it is given. Any other reducer (a user's may change
 * its accumulator in place when a pending write is applied) gets copies.
 */
export function appendOnlyChannels(graph: CheckedGraph): ReadonlySet<string> {
  let channels = appendOnly.get(graph);
  if (channels === undefined) {
    const names = Object.entries(graph.channels ?? {})
      .filter(([, channel]) => channel instanceof DeltaChannel && channel.reducer === messagesDeltaReducer)
      .map(([name]) => name);
    appendOnly.set(graph, (channels = new Set(names)));
  }
  return channels;
}

/** getState through a read-only view of the graph's checkpointer (with `tasksOnly`, one reading no shared channel), or plain getState when it has none. */
async function readForCheck(graph: CheckedGraph, config: { configurable?: Record<string, unknown> }, tasksOnly: boolean): Promise<StateSnapshot> {
  const saver = config.configurable?.[LENT_CHECKPOINTER] ?? graph.checkpointer;
  if (!hasView(saver)) return graph.getState(config);
  const shared = appendOnlyChannels(graph);
  if (shared.size === 0) return graph.getState(config);
  const view = saver.readOnlyView(tasksOnly ? { shared, skipped: shared } : { shared });
  return graph.getState({ ...config, configurable: { ...config.configurable, [LENT_CHECKPOINTER]: view } });
}

/**
 * The thread's state for a check that reads values (a run's outcome): message lists are the saver's cached ones.
 * Read only; never for users or execution.
 */
export function stateForCheck(graph: CheckedGraph, config: { configurable?: Record<string, unknown> }): Promise<StateSnapshot> {
  return readForCheck(graph, config, false);
}

/**
 * The thread's tasks and next nodes (pending interrupts, approvals) for a check that reads no values: the message
 * history is not read at all.
 */
export async function tasksForCheck(graph: CheckedGraph, config: { configurable?: Record<string, unknown> }): Promise<TasksSnapshot> {
  const { tasks, next, metadata, createdAt, config: at } = await readForCheck(graph, config, true);
  return { tasks, next, metadata, createdAt, config: at };
}
