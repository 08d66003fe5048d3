/**
 * The canonical config naming one stored checkpoint, as every saver's reads and puts return it.
 * @module
 */
import type { RunnableConfig } from "@langchain/core/runnables";

/** The config of checkpoint `id` of thread `thread`, namespace `ns`. */
export function checkpointConfig(thread: string, ns: string, id: string): RunnableConfig {
  return { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id } };
}
