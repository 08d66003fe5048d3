/**
 * The agent's tool fan-out: one `Send` per call of a model turn, and the calls a turn links with `$ref`
 * run as one group (a tool DAG of LangGraph tasks). Unrelated to declared DAGs (`defineDag`).
 * @module
 */
export { createToolNode, routeToolCalls, toolTasksFrom } from "./tool-fanout.js";
export type { ToolNodeOptions, ToolTask } from "./tool-fanout.js";
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
} from "./tool-refs.js";
export type { PlannedCall, ToolCallPlan, ToolRef, ToolRefCode, ToolRefProblem } from "./tool-refs.js";
export { groupLinkedTasks, runToolGroup } from "./tool-dag.js";
export type { ToolCallRecord, ToolGroupRunner } from "./tool-dag.js";
