/**
 * The data a declared DAG is made of: state fields, node functions and their options.
 * @module
 */
import type { ConcurrencyLimiter, ToolRetryPolicy } from "../../resilience/index.js";

/** One state key: its default and, when several branches may write it, how writes combine. */
export interface DagStateField<T> {
  /** Value before any node wrote the key. @default undefined */
  default?: () => T;
  /** Combines the current value with one node's write; without it, only ordered nodes may write the key. */
  reducer?: (current: T, update: T) => T;
}

/** Every key of the state `S` with its field declaration. */
export type DagStateSpec<S> = { [K in keyof S]-?: DagStateField<S[K]> };

/** What a node function learns besides the state. */
export interface DagNodeContext {
  /** The node's name. */
  node: string;
  /** 1 on the first attempt, then 2, 3, … under a retry policy. */
  attempt: number;
  /** Aborts when the retry loop is canceled. */
  signal: AbortSignal;
}

/**
 * A node: reads the initial state merged with every ancestor's update (in a
 * fixed topological order) and returns its own partial update.
 */
export type DagNodeFn<S> = (state: S, context: DagNodeContext) => Partial<S> | Promise<Partial<S>>;

/** How a node is wired and run. */
export interface DagNodeOptions<S> {
  /** Nodes that must finish first; empty or omitted means the node starts at START. @default [] */
  after?: readonly string[];
  /** State keys the node may write, checked at compile time for unordered writers. @default undeclared */
  writes?: readonly (keyof S & string)[];
  /** Retry policy around the node function (same shape as a tool's). @default one attempt */
  retry?: ToolRetryPolicy;
  /** A cap shared with other nodes or tools (e.g. one per external system). @default none */
  limiter?: ConcurrencyLimiter;
}

/** A node as the builder stores it. */
export interface DagNodeDef<S> {
  name: string;
  fn: DagNodeFn<S>;
  after: string[];
  writes: readonly string[] | undefined;
  retry: ToolRetryPolicy | undefined;
  limiter: ConcurrencyLimiter | undefined;
}
