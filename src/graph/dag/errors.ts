/**
 * Errors of declared DAGs: a graph that cannot compile, and two unordered
 * nodes that wrote one state key without a reducer at run time.
 * @module
 */
import { UserInputError } from "../../errors.js";

/** Why a declared DAG did not compile; stable across releases. */
export type DagProblem = "unknown_node" | "duplicate_node" | "cycle" | "unreachable" | "write_conflict";

/** Options of {@link DagCompileError}. */
export interface DagCompileErrorOptions {
  /** Which rule the DAG broke. */
  problem: DagProblem;
  /** The nodes involved, in a stable order (a cycle lists its path). */
  nodes: readonly string[];
  /** The state key two branches write, for `write_conflict`. */
  key?: string;
}

/** The declared DAG is not valid; `details` names the problem and the nodes. Code `DAG_INVALID`. */
export class DagCompileError extends UserInputError {
  readonly problem: DagProblem;
  readonly nodes: readonly string[];

  constructor(message: string, options: DagCompileErrorOptions) {
    super("DAG_INVALID", message, {
      details: { problem: options.problem, nodes: [...options.nodes], ...(options.key === undefined ? {} : { key: options.key }) },
    });
    this.problem = options.problem;
    this.nodes = options.nodes;
  }
}

/** Two nodes that may run in either order both wrote `key`, which has no reducer. Code `DAG_INVALID`. */
export class DagStateConflictError extends UserInputError {
  constructor(key: string, first: string, second: string) {
    super("DAG_INVALID", `nodes "${first}" and "${second}" both wrote state key "${key}", which has no reducer`, {
      details: { problem: "write_conflict", nodes: [first, second], key },
    });
  }
}
