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
export {
  ToolRefError,
  canonicalRefs,
  describeProblem,
  findRefs,
  isToolRef,
  parseRefPath,
  planToolCalls,
  refGroups,
  resolveArgs,
  toolRefCode,
} from "../fanout/tool-refs.js";
export type { PlannedCall, ToolCallPlan, ToolRef, ToolRefCode, ToolRefProblem } from "../fanout/tool-refs.js";
export { groupLinkedTasks, runToolGroup } from "../fanout/tool-dag.js";
export type { ToolCallRecord, ToolGroupRunner } from "../fanout/tool-dag.js";
