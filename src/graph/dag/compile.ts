/**
 * Compiles a planned DAG to LangGraph's functional API: one `entrypoint`
 * that calls one `task` per node. Every task is called at once, in the fixed
 * topological order, and awaits its dependencies inside; so each node starts
 * the moment its inputs are done (no superstep barrier), and the task ids,
 * which LangGraph derives from name and call order, are the same in every
 * run and every resume however the nodes finished.
 * @module
 */
import { type BaseChannel, GraphInterrupt, type Pregel, type PregelNode, entrypoint, task } from "@langchain/langgraph";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import { ConcurrencyLimiter, withRetry } from "../../resilience/index.js";
import type { Graph } from "@langchain/core/runnables/graph";
import { drawableDag } from "./draw.js";
import { applyUpdates, initialState } from "./merge.js";
import type { DagNodeDef, DagStateSpec } from "./spec.js";
import type { DagPlan } from "./validate.js";

/** How a declared DAG is compiled. */
export interface DagCompileOptions {
  /** Where each finished node's result is saved. @default none (no resume) */
  checkpointer?: BaseCheckpointSaver;
  /** Long-term memory store handed to LangGraph. @default none */
  store?: BaseStore;
  /** At most this many nodes of one run execute at once (waiting for inputs does not count). @default Infinity */
  maxConcurrency?: number;
  /** A cap shared by every run of the graph (and anything else holding it). @default none */
  limiter?: ConcurrencyLimiter;
}

/** A compiled declared DAG: a LangGraph graph taking a partial state (or `null` / a `Command` to resume) and returning the final state. */
export type CompiledDag<S> = Pregel<Record<string, PregelNode>, Record<string, BaseChannel>, Record<string, unknown>, Partial<S> | null, S>;

/** Everything the compiler needs from the builder. */
export interface DagCompileInput<S> {
  name: string;
  state: DagStateSpec<S>;
  nodes: ReadonlyMap<string, DagNodeDef<S>>;
  plan: DagPlan;
}

/** A node that cannot run because an ancestor did not finish; an empty interrupt records nothing, so resume re-runs it. */
const skipped = (): GraphInterrupt => new GraphInterrupt([]);

function isEmptyInterrupt(error: unknown): boolean {
  return error instanceof GraphInterrupt && error.interrupts.length === 0;
}

/** Builds the entrypoint; its drawing is replaced by the declared DAG. */
export function compileDag<S>(input: DagCompileInput<S>, options: DagCompileOptions = {}): CompiledDag<S> {
  const { name, state: spec, nodes, plan } = input;
  const compiled = entrypoint<Partial<S> | null, Promise<S>>(
    { name, ...(options.checkpointer === undefined ? {} : { checkpointer: options.checkpointer }), ...(options.store === undefined ? {} : { store: options.store }) },
    async (runInput) => {
      const base = initialState(spec, runInput);
      const perRun = new ConcurrencyLimiter(options.maxConcurrency ?? Infinity);
      const results = new Map<string, Promise<Partial<S>>>();
      // A node's result goes to its dependents the moment its function returns,
      // not after LangGraph has wrapped up the task (~1 ms of bookkeeping per
      // node on the critical path). Saving is asynchronous in LangGraph anyway.
      // A task restored on resume settles the same promise from its saved value.
      const handoff = new Map<string, Deferred<Partial<S>>>(plan.order.map((n) => [n, deferred<Partial<S>>()]));
      const inOrder = (names: ReadonlySet<string>) => plan.order.filter((n) => names.has(n));
      for (const nodeName of plan.order) {
        const def = nodes.get(nodeName) as DagNodeDef<S>;
        const ancestors = inOrder(plan.ancestors.get(nodeName) ?? new Set());
        const own = handoff.get(nodeName) as Deferred<Partial<S>>;
        const run = task<[], Promise<Partial<S>>>(nodeName, async () => {
          const done = await Promise.all(ancestors.map((a) => (handoff.get(a) as Deferred<Partial<S>>).promise)).catch(() => {
            throw skipped();
          });
          const view = applyUpdates(spec, base, ancestors.map((a, i) => [a, done[i] as Partial<S>] as const), plan.ancestors);
          const update = await runNode(def, view, [perRun, options.limiter, def.limiter]);
          own.resolve(update);
          return update;
        });
        // LangGraph types the call as Promise<Promise<T>>; at run time it is one promise.
        const settled = run() as unknown as Promise<Partial<S>>;
        settled.then(own.resolve, own.reject);
        results.set(nodeName, settled);
        // Preparing a task costs LangGraph about a millisecond; let the ones
        // called so far start (roots come first) before preparing the next,
        // instead of every root waiting for all twenty. The call order, and so
        // every task id, stays the fixed topological one.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      const settled = await Promise.allSettled(plan.order.map((n) => results.get(n) as Promise<Partial<S>>));
      const reasons = settled.flatMap((s) => (s.status === "rejected" && !isEmptyInterrupt(s.reason) ? [s.reason as unknown] : []));
      const failure = reasons.find((r) => !(r instanceof GraphInterrupt));
      if (failure !== undefined) throw failure as Error;
      // Every paused branch's interrupt surfaces on the entrypoint, as when a plain functional-API task interrupts.
      if (reasons.length > 0) throw new GraphInterrupt(reasons.flatMap((r) => (r as GraphInterrupt).interrupts));
      const updates = plan.order.map((n, i) => [n, (settled[i] as PromiseFulfilledResult<Partial<S>>).value] as const);
      return applyUpdates(spec, base, updates, plan.ancestors);
    },
  );
  const drawing = () => drawableDag(plan.order, new Map([...nodes].map(([n, d]) => [n, d.after])));
  drawAsDeclared(compiled as unknown as Drawable, drawing);
  return compiled as unknown as CompiledDag<S>;
}

/** The part of a compiled graph its drawing replaces, plus `withConfig`, whose copies must draw the same. */
interface Drawable {
  getGraph: () => unknown;
  getGraphAsync: () => Promise<unknown>;
  withConfig: (config: object) => Drawable;
}

/**
 * Makes `graph` and every copy `withConfig` makes of it draw the declared DAG: the runtime and the server bind
 * each graph of langgraph.json with `withConfig`, and Pregel's copy would draw the single entrypoint node again.
 */
function drawAsDeclared(graph: Drawable, drawing: () => Graph): void {
  const copy = graph.withConfig.bind(graph);
  Object.assign(graph, {
    getGraph: drawing,
    getGraphAsync: () => Promise.resolve(drawing()),
    withConfig: (config: object) => {
      const copied = copy(config);
      drawAsDeclared(copied, drawing);
      return copied;
    },
  });
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

/** A promise settled from outside; only its first settlement counts. */
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Dependents may all be gone (a failed run); the entrypoint reports the failure, not this copy.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** Runs one node holding every applicable slot, under its retry policy; retries wait without a slot. */
async function runNode<S>(def: DagNodeDef<S>, view: S, limiters: readonly (ConcurrencyLimiter | undefined)[]): Promise<Partial<S>> {
  return withRetry(
    async (attempt, signal) => {
      const releases: (() => void)[] = [];
      try {
        for (const limiter of limiters) if (limiter !== undefined) releases.push(await limiter.acquire(signal));
        return (await def.fn(view, { node: def.name, attempt, signal })) ?? {};
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
    def.retry ?? {},
  );
}
