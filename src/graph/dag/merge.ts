/**
 * How node updates combine into state: in the DAG's fixed topological order,
 * through the key's reducer when it has one, and never silently between two
 * unordered writers of a reducer-less key.
 * @module
 */
import { DagStateConflictError } from "./errors.js";
import type { DagStateSpec } from "./spec.js";

/** The state before any node ran: the input over the declared defaults. */
export function initialState<S>(spec: DagStateSpec<S>, input: Partial<S> | null | undefined): S {
  const state: Record<string, unknown> = {};
  for (const [key, field] of Object.entries<{ default?: () => unknown }>(spec as Record<string, { default?: () => unknown }>)) {
    if (field.default !== undefined) state[key] = field.default();
  }
  return { ...state, ...(input ?? {}) } as S;
}

/**
 * Applies `updates` (node name → partial update, already in topological
 * order) to `base`. `ancestors` tells which writers are ordered.
 */
export function applyUpdates<S>(
  spec: DagStateSpec<S>,
  base: S,
  updates: readonly (readonly [string, Partial<S>])[],
  ancestors: ReadonlyMap<string, ReadonlySet<string>>,
): S {
  const state = { ...base } as Record<string, unknown>;
  const lastWriter = new Map<string, string>();
  for (const [node, update] of updates) {
    for (const [key, value] of Object.entries(update ?? {})) {
      if (value === undefined) continue;
      const reducer = (spec as Record<string, { reducer?: (a: unknown, b: unknown) => unknown } | undefined>)[key]?.reducer;
      if (reducer !== undefined) {
        state[key] = reducer(state[key], value);
        continue;
      }
      const previous = lastWriter.get(key);
      if (previous !== undefined && ancestors.get(node)?.has(previous) !== true) throw new DagStateConflictError(key, previous, node);
      lastWriter.set(key, node);
      state[key] = value;
    }
  }
  return state as S;
}
