/**
 * Model-planned tool DAGs (LLMCompiler style): a tool call's argument may be
 * `{"$ref": "call_1", "path": "items[0].sku"}`, the value at `path` of call
 * `call_1`'s result. Pure pieces for the tool fan-out: find references, plan
 * (missing refs and cycles become structured problems for the model), group
 * linked calls, and substitute resolved values.
 * @module
 */
import { ModelBehaviorError, type AgentrtErrorCode } from "../../errors.js";

/** A reference to another call's result, as the model writes it in an argument. */
export interface ToolRef {
  $ref: string;
  /** Dotted path with `[n]` indexes into the result. @default the whole result */
  path?: string;
}

/** One tool call of a model turn. */
export interface PlannedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** Why a call cannot run; sent back to the model as that call's tool result. */
export type ToolRefProblem =
  | { kind: "missing_ref"; callId: string; ref: string }
  | { kind: "cycle"; callId: string; cycle: string[] }
  | { kind: "bad_path"; callId: string; ref: string; path: string }
  | { kind: "ref_failed"; callId: string; ref: string };

/** The calls of one turn, planned: each call's dependencies and the problems found. */
export interface ToolCallPlan {
  /** Call ids in the model's order. */
  ids: string[];
  /** Ids each call refers to (only existing calls). */
  deps: Map<string, string[]>;
  /** Calls that must not run, with why; dependents of a refused call are refused too. */
  problems: Map<string, ToolRefProblem>;
}

/** A structured refusal of a planned call; `code` is the problem's TOOL_REF_* code (the one its ToolMessage carries), `details` the problem. */
export class ToolRefError extends ModelBehaviorError {
  declare readonly code: ToolRefCode;
  readonly problem: ToolRefProblem;

  constructor(problem: ToolRefProblem) {
    super(toolRefCode(problem), describeProblem(problem), { details: { ...problem } });
    this.problem = problem;
  }
}

/** A sentence the model can act on. */
export function describeProblem(p: ToolRefProblem): string {
  switch (p.kind) {
    case "missing_ref":
      return `call ${p.callId} refers to ${p.ref}, which is not a call of this turn`;
    case "cycle":
      return `call ${p.callId} is part of a reference cycle: ${p.cycle.join(" → ")}`;
    case "bad_path":
      return `call ${p.callId}: path "${p.path}" does not exist in the result of ${p.ref}`;
    case "ref_failed":
      return `call ${p.callId} was not run because ${p.ref}, which it refers to, did not succeed`;
  }
}

/** The stable code a refused call's ToolMessage and its {@link ToolRefError} carry, one per problem kind. */
export type ToolRefCode = Extract<AgentrtErrorCode, `TOOL_REF_${string}`>;

const REF_CODES: Record<ToolRefProblem["kind"], ToolRefCode> = {
  missing_ref: "TOOL_REF_MISSING",
  cycle: "TOOL_REF_CYCLE",
  bad_path: "TOOL_REF_BAD_PATH",
  ref_failed: "TOOL_REF_FAILED",
};

/** The {@link ToolRefCode} of a problem. */
export function toolRefCode(problem: ToolRefProblem): ToolRefCode {
  return REF_CODES[problem.kind];
}

/** True for `{ $ref: string, path?: string }` and nothing else. */
export function isToolRef(value: unknown): value is ToolRef {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const { $ref, path, ...rest } = value as Record<string, unknown>;
  return typeof $ref === "string" && (path === undefined || typeof path === "string") && Object.keys(rest).length === 0;
}

/** Every reference inside `value`, at any depth. */
export function findRefs(value: unknown): ToolRef[] {
  if (isToolRef(value)) return [value];
  if (Array.isArray(value)) return value.flatMap(findRefs);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(findRefs);
  return [];
}

/**
 * Rewrites positional references to call ids: a model cannot know the ids its
 * provider will give the calls it is writing, so `"$ref": "call_2"` (also
 * `"#2"`, `"$2"`, `"2"`) names the turn's 2nd call (1-based) — but only when no
 * call of the turn has that exact id. An exact id always wins, so with ids
 * `call_0, call_1` (providers numbering from 0) `"call_1"` is the call `call_1`.
 */
export function canonicalRefs(calls: readonly PlannedCall[]): PlannedCall[] {
  const ids = calls.map((c) => c.id);
  const known = new Set(ids);
  const canonical = (ref: string): string => {
    if (known.has(ref)) return ref;
    const position = /^(?:call_|#|\$)?(\d+)$/.exec(ref)?.[1];
    return (position === undefined ? undefined : ids[Number(position) - 1]) ?? ref;
  };
  const walk = (value: unknown): unknown => {
    if (isToolRef(value)) return { ...value, $ref: canonical(value.$ref) };
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return calls.map((c) => (findRefs(c.args).length === 0 ? c : { ...c, args: walk(c.args) as Record<string, unknown> }));
}

/**
 * Splits a planned turn into groups that must run together: each set of calls
 * linked by references (in the model's order) and, alone, every call that
 * neither refers nor is referred to.
 */
export function refGroups(plan: ToolCallPlan): string[][] {
  const root = new Map(plan.ids.map((id) => [id, id]));
  const find = (id: string): string => {
    let r = id;
    while (root.get(r) !== r) r = root.get(r) as string;
    return r;
  };
  for (const [id, deps] of plan.deps) for (const dep of deps) root.set(find(dep), find(id));
  const groups = new Map<string, string[]>();
  for (const id of plan.ids) groups.set(find(id), [...(groups.get(find(id)) ?? []), id]);
  return [...groups.values()];
}

/** Plans a turn: dependencies, missing references, cycles, and the calls they block. */
export function planToolCalls(calls: readonly PlannedCall[]): ToolCallPlan {
  const ids = calls.map((c) => c.id);
  const known = new Set(ids);
  const deps = new Map<string, string[]>();
  const problems = new Map<string, ToolRefProblem>();
  for (const call of calls) {
    const refs = [...new Set(findRefs(call.args).map((r) => r.$ref))];
    const missing = refs.find((r) => !known.has(r));
    if (missing !== undefined) problems.set(call.id, { kind: "missing_ref", callId: call.id, ref: missing });
    deps.set(call.id, refs.filter((r) => known.has(r)));
  }
  for (const id of ids) {
    if (problems.has(id)) continue;
    const cycle = cycleThrough(id, deps);
    if (cycle !== undefined) problems.set(id, { kind: "cycle", callId: id, cycle });
  }
  blockDependents(ids, deps, problems);
  return { ids, deps, problems };
}

/** The cycle `id → … → id` along references, if any. */
function cycleThrough(id: string, deps: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const stack: [string, string[]][] = [[id, [id]]];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const [node, path] = stack.pop() as [string, string[]];
    for (const dep of deps.get(node) ?? []) {
      if (dep === id) return [...path, id];
      if (!seen.has(dep)) {
        seen.add(dep);
        stack.push([dep, [...path, dep]]);
      }
    }
  }
  return undefined;
}

function blockDependents(ids: readonly string[], deps: ReadonlyMap<string, readonly string[]>, problems: Map<string, ToolRefProblem>): void {
  for (let grew = true; grew; ) {
    grew = false;
    for (const id of ids) {
      if (problems.has(id)) continue;
      const blocked = (deps.get(id) ?? []).find((d) => problems.has(d));
      if (blocked !== undefined) {
        problems.set(id, { kind: "ref_failed", callId: id, ref: blocked });
        grew = true;
      }
    }
  }
}

/** Splits `items[0].sku` into `["items", 0, "sku"]`. */
export function parseRefPath(path: string): (string | number)[] {
  const parts: (string | number)[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) parts.push(match[2] !== undefined ? Number(match[2]) : (match[1] as string));
  return parts;
}

/** Replaces every reference in `args` with the value it points to; `bad_path` when the path is absent. */
export function resolveArgs(callId: string, args: Record<string, unknown>, results: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const walk = (value: unknown): unknown => {
    if (isToolRef(value)) return lookup(callId, value, results);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  return walk(args) as Record<string, unknown>;
}

function lookup(callId: string, ref: ToolRef, results: ReadonlyMap<string, unknown>): unknown {
  if (!results.has(ref.$ref)) throw new ToolRefError({ kind: "ref_failed", callId, ref: ref.$ref });
  let current: unknown = results.get(ref.$ref);
  for (const part of parseRefPath(ref.path ?? "")) {
    const container = current as Record<string | number, unknown> | null;
    if (typeof container !== "object" || container === null || !Object.hasOwn(container, part)) {
      throw new ToolRefError({ kind: "bad_path", callId, ref: ref.$ref, path: ref.path ?? "" });
    }
    current = container[part];
  }
  return current;
}
