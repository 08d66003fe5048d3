/**
 * Runs the calls of one model turn that are linked by `$ref` arguments: each
 * call starts the moment the calls it refers to have finished (independent
 * ones concurrently), with the referenced values substituted. Every call is a
 * LangGraph `task`, so its result is checkpointed the moment it finishes and a
 * resume (after an approval or a crash) re-runs only the unfinished calls.
 * @module
 */
import { GraphInterrupt, task, type LangGraphRunnableConfig } from "@langchain/langgraph";
import type { ToolStep } from "../state.js";
import { canonicalRefs, findRefs, planToolCalls, refGroups, resolveArgs, ToolRefError, type PlannedCall, type ToolRefProblem } from "./tool-refs.js";

/** What one call produced; plain data, because it is saved as the call's task result. */
export interface ToolCallRecord {
  step: ToolStep;
  /** The tool's result when `step.status` is "done"; what references read. */
  data?: unknown;
}

/** How {@link runToolGroup} runs or refuses a single call. */
export interface ToolGroupRunner {
  /** Runs a call whose references are resolved (schema, policy and approval apply to these arguments). */
  run(call: PlannedCall): Promise<ToolCallRecord>;
  /** The record of a call that cannot run, with why. */
  refuse(call: PlannedCall, problem: ToolRefProblem): ToolCallRecord;
}

/** A branch input holding one call; `group` is added for calls linked by references. */
interface CallTask {
  call: { id: string; name: string; args: unknown };
  invalid?: string;
}

const argsObject = (args: unknown): Record<string, unknown> | undefined =>
  typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : undefined;

/**
 * Bundles the calls of a turn that are linked by references into one task
 * each (`group`, positional references rewritten to call ids); calls without
 * references stay as they are, one branch each. A turn without any reference
 * comes back unchanged.
 */
export function groupLinkedTasks<T extends CallTask>(tasks: readonly T[]): (T & { group?: PlannedCall[] })[] {
  const parsed = tasks.filter((t) => t.invalid === undefined && argsObject(t.call.args) !== undefined);
  if (!parsed.some((t) => findRefs(t.call.args).length > 0)) return [...tasks];
  const calls = canonicalRefs(parsed.map((t) => ({ id: t.call.id, name: t.call.name, args: argsObject(t.call.args) as Record<string, unknown> })));
  const byId = new Map(calls.map((c) => [c.id, c]));
  const taskOf = new Map(parsed.map((t) => [t.call.id, t]));
  const grouped = refGroups(planToolCalls(calls)).map((ids) => {
    const first = taskOf.get(ids[0] as string) as T;
    const linked = ids.length > 1 || findRefs(first.call.args).length > 0;
    return linked ? { ...first, group: ids.map((id) => byId.get(id) as PlannedCall) } : first;
  });
  return [...grouped, ...tasks.filter((t) => !parsed.includes(t))];
}

/** A call that cannot run yet because a call it refers to paused; an empty interrupt records nothing, so resume re-runs it. */
const waiting = (): GraphInterrupt => new GraphInterrupt([]);

function isEmptyInterrupt(error: unknown): boolean {
  return error instanceof GraphInterrupt && error.interrupts.length === 0;
}

/** True inside a LangGraph node, where `task` can checkpoint each call. */
function insideGraph(config: LangGraphRunnableConfig | undefined): boolean {
  return typeof (config?.configurable as Record<string, unknown> | undefined)?.__pregel_call === "function";
}

async function runCall(call: PlannedCall, problem: ToolRefProblem | undefined, deps: readonly string[], records: ReadonlyMap<string, Promise<ToolCallRecord>>, runner: ToolGroupRunner): Promise<ToolCallRecord> {
  if (problem !== undefined) return runner.refuse(call, problem);
  const done = await Promise.all(deps.map((d) => records.get(d) as Promise<ToolCallRecord>)).catch(() => {
    throw waiting();
  });
  const failed = deps.find((_, i) => done[i]?.step.status !== "done");
  if (failed !== undefined) return runner.refuse(call, { kind: "ref_failed", callId: call.id, ref: failed });
  let args: Record<string, unknown>;
  try {
    args = resolveArgs(call.id, call.args, new Map(deps.map((d, i) => [d, done[i]?.data])));
  } catch (error) {
    if (error instanceof ToolRefError) return runner.refuse(call, error.problem);
    throw error;
  }
  return runner.run({ ...call, args });
}

/**
 * Runs a group of linked calls and returns one record per call in the model's
 * order. Tasks are called at once in that fixed order and wait for their
 * references inside, so task ids (name and call order) match on every resume
 * whatever order the calls finished in. Pauses of several calls surface together.
 */
export async function runToolGroup(calls: readonly PlannedCall[], runner: ToolGroupRunner, config: LangGraphRunnableConfig | undefined): Promise<ToolCallRecord[]> {
  const plan = planToolCalls(calls);
  const byId = new Map(calls.map((c) => [c.id, c]));
  const records = new Map<string, Promise<ToolCallRecord>>();
  const checkpointed = insideGraph(config);
  for (const id of plan.ids) {
    const call = byId.get(id) as PlannedCall;
    const body = () => runCall(call, plan.problems.get(id), plan.deps.get(id) ?? [], records, runner);
    // LangGraph types a task call as Promise<Promise<T>>; at run time it is one promise.
    const started = checkpointed ? (task<[], Promise<ToolCallRecord>>(`tool:${call.name}`, body)() as unknown as Promise<ToolCallRecord>) : body();
    records.set(id, started);
  }
  const settled = await Promise.allSettled(plan.ids.map((id) => records.get(id) as Promise<ToolCallRecord>));
  const reasons = settled.flatMap((s) => (s.status === "rejected" && !isEmptyInterrupt(s.reason) ? [s.reason as unknown] : []));
  const failure = reasons.find((r) => !(r instanceof GraphInterrupt));
  if (failure !== undefined) throw failure as Error;
  if (reasons.length > 0) throw new GraphInterrupt(reasons.flatMap((r) => (r as GraphInterrupt).interrupts));
  return settled.map((s) => (s as PromiseFulfilledResult<ToolCallRecord>).value);
}
