/**
 * Compile-time checks of a declared DAG and the plan the scheduler follows:
 * a fixed topological order and each node's ancestors.
 * @module
 */
import { DagCompileError } from "./errors.js";

/** The DAG's shape as the validator sees it. */
export interface DagShape {
  /** Node names in declaration order. */
  nodes: readonly string[];
  /** Each node's direct dependencies. */
  after: ReadonlyMap<string, readonly string[]>;
  /** Nodes wired from START; `undefined` means every node without dependencies starts at START. */
  entries: ReadonlySet<string> | undefined;
  /** Keys each node declared it writes (`undefined` when it did not say). */
  writes: ReadonlyMap<string, readonly string[] | undefined>;
  /** State keys that have a reducer. */
  reduced: ReadonlySet<string>;
}

/** What compiling produces: the order tasks are called in and every node's ancestors. */
export interface DagPlan {
  /** Topological order, ties broken by declaration order, so it never depends on timing. */
  order: string[];
  /** Transitive dependencies of each node. */
  ancestors: Map<string, Set<string>>;
}

/** Validates the DAG (unknown node, cycle, unreachable node, unordered writers of a reducer-less key) and plans it. */
export function planDag(shape: DagShape): DagPlan {
  checkKnown(shape);
  const order = topologicalOrder(shape);
  checkReachable(shape);
  const ancestors = new Map<string, Set<string>>();
  for (const name of order) {
    const set = new Set<string>();
    for (const dep of shape.after.get(name) ?? []) {
      set.add(dep);
      for (const a of ancestors.get(dep) ?? []) set.add(a);
    }
    ancestors.set(name, set);
  }
  checkWrites(shape, order, ancestors);
  return { order, ancestors };
}

function checkKnown(shape: DagShape): void {
  const known = new Set(shape.nodes);
  for (const name of shape.nodes) {
    for (const dep of shape.after.get(name) ?? []) {
      if (!known.has(dep)) {
        throw new DagCompileError(`node "${name}" depends on unknown node "${dep}"`, { problem: "unknown_node", nodes: [name, dep] });
      }
    }
  }
  for (const entry of shape.entries ?? []) {
    if (!known.has(entry)) throw new DagCompileError(`START leads to unknown node "${entry}"`, { problem: "unknown_node", nodes: [entry] });
  }
}

/** Kahn's algorithm; the nodes left over contain a cycle, which is reported as a path. */
function topologicalOrder(shape: DagShape): string[] {
  const indegree = new Map(shape.nodes.map((n) => [n, (shape.after.get(n) ?? []).length]));
  const children = new Map<string, string[]>(shape.nodes.map((n) => [n, []]));
  for (const n of shape.nodes) for (const dep of shape.after.get(n) ?? []) children.get(dep)?.push(n);
  const order: string[] = [];
  const ready = shape.nodes.filter((n) => indegree.get(n) === 0);
  while (ready.length > 0) {
    const next = ready.shift() as string;
    order.push(next);
    for (const child of children.get(next) ?? []) {
      const left = (indegree.get(child) ?? 0) - 1;
      indegree.set(child, left);
      if (left === 0) ready.push(child);
    }
  }
  if (order.length < shape.nodes.length) {
    const cycle = findCycle(shape, new Set(shape.nodes.filter((n) => !order.includes(n))));
    throw new DagCompileError(`cycle: ${cycle.join(" → ")}`, { problem: "cycle", nodes: cycle });
  }
  return order;
}

/** Walks dependencies inside the leftover set until a node repeats. */
function findCycle(shape: DagShape, leftover: ReadonlySet<string>): string[] {
  const start = [...leftover][0] as string;
  const path: string[] = [];
  let current = start;
  while (!path.includes(current)) {
    path.push(current);
    current = (shape.after.get(current) ?? []).find((d) => leftover.has(d)) as string;
  }
  // Dependencies point backwards, so reverse to read the cycle in execution order.
  return [...path.slice(path.indexOf(current)), current].reverse();
}

function checkReachable(shape: DagShape): void {
  if (shape.entries === undefined) return;
  const reached = new Set(shape.entries);
  let grew = true;
  while (grew) {
    grew = false;
    for (const n of shape.nodes) {
      const deps = shape.after.get(n) ?? [];
      if (!reached.has(n) && deps.length > 0 && deps.every((d) => reached.has(d))) {
        reached.add(n);
        grew = true;
      }
    }
  }
  const unreachable = shape.nodes.filter((n) => !reached.has(n));
  if (unreachable.length > 0) {
    throw new DagCompileError(`unreachable from START: ${unreachable.join(", ")}`, { problem: "unreachable", nodes: unreachable });
  }
}

function checkWrites(shape: DagShape, order: readonly string[], ancestors: Map<string, Set<string>>): void {
  for (let i = 0; i < order.length; i++) {
    const a = order[i] as string;
    for (const b of order.slice(i + 1)) {
      if (ancestors.get(b)?.has(a) === true) continue;
      const shared = (shape.writes.get(a) ?? []).filter((k) => !shape.reduced.has(k) && (shape.writes.get(b) ?? []).includes(k));
      const key = shared[0];
      if (key !== undefined) {
        throw new DagCompileError(`nodes "${a}" and "${b}" may run in either order and both write "${key}", which has no reducer`, {
          problem: "write_conflict",
          nodes: [a, b],
          key,
        });
      }
    }
  }
}
