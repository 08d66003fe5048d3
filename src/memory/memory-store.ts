/**
 * What callers of agentrt's long-term memory talk to, whichever database holds it.
 * @module
 */
import type { BaseStore } from "@langchain/langgraph-checkpoint";

/** How a memory store keeps time and expires items (the same on every backend). */
export interface MemoryStoreOptions {
  /** Time to live of items put without their own; undefined keeps them forever. @default undefined */
  defaultTtlMs?: number;
  /** Whether reading an item (get or search) restarts its time to live. @default true */
  refreshOnRead?: boolean;
  /** Clock in epoch milliseconds; injectable for TTL tests. @default Date.now */
  now?: () => number;
}

/**
 * LangGraph's `BaseStore` plus agentrt's per-item time to live and expiry sweep: implemented by
 * `SqliteStore` and `PostgresStore`, used by the server's `/store` endpoints and every graph's `config.store`.
 */
export interface MemoryStore extends BaseStore {
  /** Like `BaseStore.put`, with an optional per-item time to live (`null`: never expires). */
  put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[], options?: { ttlMs?: number | null }): Promise<void>;
  /** Deletes expired items now (they are already invisible to reads); resolves to how many. */
  sweepExpired(): Promise<number>;
}
