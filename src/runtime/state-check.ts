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

/** Per graph: its channels that may be shared uncopied, and its delta channels. */
const appendOnly = new WeakMap<object, ReadonlySet<string>>();
const deltas = new WeakMap<object, ReadonlySet<string>>();

/** The names of `graph`'s channels that pass `test`, kept per graph in `known`. */
function channelsOf(graph: CheckedGraph, known: WeakMap<object, ReadonlySet<string>>, test: (channel: unknown) => boolean): ReadonlySet<string> {
  let channels = known.get(graph);
  if (channels === undefined) {
    const names = Object.entries(graph.channels ?? {}).filter(([, channel]) => test(channel)).map(([name]) => name);
    known.set(graph, (channels = new Set(names)));
  }
  return channels;
}

/**
 * The channels of `graph` whose cached values a check may share: DeltaChannels reduced by messagesDeltaReducer, which
 * builds a new list and never changes the list or the messages it is given. Any other reducer (a user's may change
 * its accumulator in place when a pending write is applied) gets copies.
 */
export function appendOnlyChannels(graph: CheckedGraph): ReadonlySet<string> {
  return channelsOf(graph, appendOnly, (channel) => channel instanceof DeltaChannel && channel.reducer === messagesDeltaReducer);
}

/**
 * The DeltaChannels of `graph`, whose history a tasks check skips: one read without it starts from the channel's
 * initial value (never empty, so a node it triggers is still planned), and tasks and next follow channel versions
 * and pending writes, not values.
 */
function deltaChannels(graph: CheckedGraph): ReadonlySet<string> {
  return channelsOf(graph, deltas, (channel) => channel instanceof DeltaChannel);
}

/** getState through a read-only view of the graph's checkpointer (with `tasksOnly`, one reading no delta channel's history), or plain getState when it has none. */
async function readForCheck(graph: CheckedGraph, config: { configurable?: Record<string, unknown> }, tasksOnly: boolean): Promise<StateSnapshot> {
  const saver = config.configurable?.[LENT_CHECKPOINTER] ?? graph.checkpointer;
  if (!hasView(saver)) return graph.getState(config);
  const shared = appendOnlyChannels(graph);
  const skipped = tasksOnly ? deltaChannels(graph) : new Set<string>();
  if (shared.size === 0 && skipped.size === 0) return graph.getState(config);
  const view = saver.readOnlyView({ shared, skipped });
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
 * The thread's tasks and next nodes (pending interrupts, approvals) for a check that reads no values: no delta
 * channel's history (the messages) is read at all.
 */
export async function tasksForCheck(graph: CheckedGraph, config: { configurable?: Record<string, unknown> }): Promise<TasksSnapshot> {
  const { tasks, next, metadata, createdAt, config: at } = await readForCheck(graph, config, true);
  return { tasks, next, metadata, createdAt, config: at };
}
