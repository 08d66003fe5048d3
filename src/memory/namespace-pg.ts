/**
 * The namespace conditions of namespace-sql.ts for PostgreSQL, where the namespace is a text array:
 * prefix ranges on `ns_path`, prefix/suffix labels as subscripts, depth cuts as slices.
 * @module
 */
import type { MatchCondition } from "@langchain/langgraph-checkpoint";
import { matchCondition, prefixRange } from "./namespace-sql.js";
import type { PgParams } from "./pg-params.js";

/** Rows whose namespace starts with `prefix` (every row for an empty prefix), as an index range on `ns_path`. */
export function pgPrefixRange(prefix: readonly string[], params: PgParams): string {
  const range = prefixRange(prefix);
  if (range.params.length === 0) return "TRUE";
  return `ns_path >= ${params.add(range.params[0], "text")} AND ns_path < ${params.add(range.params[1], "text")}`;
}

/** One listNamespaces condition: labels at the start (prefix) or end (suffix), "*" matching any label. */
export function pgMatchCondition(condition: MatchCondition, params: PgParams): string {
  matchCondition(condition); // the same refusals as on SQLite (too many labels)
  const length = condition.path.length;
  const parts = [`cardinality(ns) >= ${params.add(length, "int")}`];
  condition.path.forEach((label, i) => {
    if (label === "*") return;
    const index = condition.matchType === "prefix" ? `${i + 1}` : `cardinality(ns) - ${length - i - 1}`;
    parts.push(`ns[${index}] = ${params.add(label, "text")}`);
  });
  return parts.join(" AND ");
}

/** The namespace cut to `maxDepth` labels (the whole namespace when no depth is given). */
export function pgTruncatedNamespace(maxDepth: number | undefined, params: PgParams): string {
  return maxDepth === undefined ? "ns" : `ns[1:${params.add(maxDepth, "int")}]`;
}
