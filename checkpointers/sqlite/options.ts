import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";

/** How {@link SqliteSaver.create} opens its database. */
export interface SqliteSaverOptions {
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
