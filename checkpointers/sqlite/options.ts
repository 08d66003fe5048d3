import type { RunnableConfig } from "@langchain/core/runnables";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";

/**
 * When a put/putWrites is on disk. `"commit"` (default): committed before the
 * promise resolves; calls made at once (one microtask wave: concurrent graphs
 * on one saver, a graph's put beside its tasks' writes) share one transaction,
 * each in its own savepoint, so one refused or failing write fails alone. `"group"` (opt-in): queued and
 * committed with every other write of the same event-loop turn in one
 * transaction (at most 256 per batch); reads see queued writes, but a crash
 * can lose the last batch (never half of one). Call `flush()` to force it.
 */
export type SqliteDurability = "commit" | "group";

/** Behaviour of a saver, whoever opened its connection. */
export interface SqliteSaverBehaviour {
  /** @default "commit" */
  durability?: SqliteDurability;
  /**
   * Called inside each put/putWrites transaction, before its rows are written, with the call's
   * config: throw to refuse the write (it rolls back and the error reaches the caller as thrown),
   * or write rows of your own tables on the same connection so they commit with the checkpoint;
   * return a function to be called if the transaction then fails (to restore what you took for it).
   * agentrt's runtime fences checkpoints with the run's lease here. Not with `durability: "group"`.
   * @default none
   */
  beforeWrite?: (config: RunnableConfig) => void | (() => void);
}

/** How {@link SqliteSaver.create} opens its database. */
export interface SqliteSaverOptions extends SqliteSaverBehaviour {
  /** A file path (created if missing; its directory must exist) or `":memory:"`. */
  path: string;
  /** Serializer for channel values, writes and metadata. @default new JsonPlusSerializer() */
  serde?: SerializerProtocol;
  /** How long a writer waits for another process's lock, in ms. @default 5000 */
  busyTimeoutMs?: number;
  /** Open without write access: reads work, put/putWrites fail. @default false */
  readonly?: boolean;
}

/** How many checkpoints `prune()` keeps, and where. */
export interface PruneOptions {
  /** The thread to prune. */
  threadId: string;
  /** Keep this many newest checkpoints per namespace (at least 1). */
  keepLast: number;
  /** Only prune this namespace. @default every namespace of the thread */
  checkpointNs?: string;
}
