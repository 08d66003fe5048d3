/**
 * Declared DAGs: nodes start the moment their inputs are done.
 * @module
 */
export { defineDag, DagBuilder } from "./builder.js";
export type { DefineDagOptions } from "./builder.js";
export type { CompiledDag, DagCompileOptions } from "./compile.js";
export { DagCompileError, DagStateConflictError } from "./errors.js";
export type { DagProblem, DagCompileErrorOptions } from "./errors.js";
export type { DagNodeContext, DagNodeFn, DagNodeOptions, DagStateField, DagStateSpec } from "./spec.js";
