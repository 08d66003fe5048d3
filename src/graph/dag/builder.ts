/**
 * `defineDag`: declare nodes with what they depend on (or the usual edges),
 * then compile to a LangGraph graph that starts each node as soon as its
 * inputs are done.
 * @module
 */
import { END, START } from "@langchain/langgraph";
import { type CompiledDag, type DagCompileOptions, compileDag } from "./compile.js";
import { drawableDag } from "./draw.js";
import { DagCompileError } from "./errors.js";
import type { DagNodeDef, DagNodeFn, DagNodeOptions, DagStateSpec } from "./spec.js";
import { type DagPlan, planDag } from "./validate.js";

/** Options of {@link defineDag}. */
export interface DefineDagOptions<S> {
  /** Graph name (the entrypoint's name in traces and checkpoints). @default "dag" */
  name?: string;
  /** Every state key with its default and optional reducer. */
  state: DagStateSpec<S>;
}

/** A DAG being declared; every method but `compile`/`drawMermaid` returns the builder. */
export class DagBuilder<S> {
  readonly #name: string;
  readonly #state: DagStateSpec<S>;
  readonly #nodes = new Map<string, DagNodeDef<S>>();
  #entries: Set<string> | undefined;

  constructor(options: DefineDagOptions<S>) {
    this.#name = options.name ?? "dag";
    this.#state = options.state;
  }

  /** Adds a node; `after` names the nodes it waits for (none: it starts at START). */
  node(name: string, fn: DagNodeFn<S>, options: DagNodeOptions<S> = {}): this {
    if (this.#nodes.has(name) || name === START || name === END) {
      throw new DagCompileError(`node "${name}" is declared twice or uses a reserved name`, { problem: "duplicate_node", nodes: [name] });
    }
    this.#nodes.set(name, {
      name,
      fn,
      after: [...(options.after ?? [])],
      writes: options.writes,
      retry: options.retry,
      limiter: options.limiter,
    });
    return this;
  }

  /** The usual edge: `to` waits for `from`. Edges from START make entries explicit (others become unreachable); edges to END are implied. */
  edge(from: string, to: string): this {
    if (to === END) return this;
    if (from === START) {
      this.#entries ??= new Set();
      this.#entries.add(to);
      return this;
    }
    const target = this.#nodes.get(to);
    if (target === undefined) throw new DagCompileError(`edge to unknown node "${to}"`, { problem: "unknown_node", nodes: [from, to] });
    if (!target.after.includes(from)) target.after.push(from);
    return this;
  }

  /** Validates and plans; throws {@link DagCompileError} naming the nodes. */
  plan(): DagPlan {
    return planDag({
      nodes: [...this.#nodes.keys()],
      after: new Map([...this.#nodes].map(([n, d]) => [n, d.after])),
      entries: this.#entries,
      writes: new Map([...this.#nodes].map(([n, d]) => [n, d.writes])),
      reduced: new Set(Object.entries(this.#state).filter(([, f]) => (f as { reducer?: unknown }).reducer !== undefined).map(([k]) => k)),
    });
  }

  /** Compiles to a LangGraph graph (`invoke`, `stream`, `getGraphAsync` drawing the declared DAG). */
  compile(options: DagCompileOptions = {}): CompiledDag<S> {
    return compileDag({ name: this.#name, state: this.#state, nodes: this.#nodes, plan: this.plan() }, options);
  }

  /** Mermaid source of the declared DAG. */
  drawMermaid(): string {
    const plan = this.plan();
    return drawableDag(plan.order, new Map([...this.#nodes].map(([n, d]) => [n, d.after]))).drawMermaid();
  }
}

/**
 * Starts declaring a DAG whose independent branches run concurrently.
 * @example
 * const graph = defineDag({ state: { a: {}, b: {} } })
 *   .node("A", () => ({ a: 1 }))
 *   .node("B", (s) => ({ b: s.a + 1 }), { after: ["A"] })
 *   .compile({ checkpointer });
 */
export function defineDag<S>(options: DefineDagOptions<S>): DagBuilder<S> {
  return new DagBuilder(options);
}
