/**
 * Namespace encoding and the SQL conditions on it: prefix ranges for search,
 * prefix/suffix patterns with "*" wildcards for listNamespaces.
 * @module
 */
import { type MatchCondition, validateNamespace } from "@langchain/langgraph-checkpoint";
import type { SqlCondition } from "./filter-sql.js";

/** Labels joined by "." plus a trailing "." ("users.alice."); labels never contain ".". */
export function namespacePath(namespace: readonly string[]): string {
  return namespace.map((label) => `${label}.`).join("");
}

/** Throws InvalidNamespaceError for what LangGraph's stores refuse (empty, ".", ":", NUL). */
export function checkNamespace(namespace: string[], allowEmpty = false): void {
  validateNamespace(namespace, { allowEmpty, allowReservedRoot: true });
}

/** Rows whose namespace starts with `prefix` (every row for an empty prefix), as an index range. */
export function prefixRange(prefix: readonly string[]): SqlCondition {
  if (prefix.length === 0) return { sql: "1", params: [] };
  const low = namespacePath(prefix);
  // Every path starting with "a.b." sorts in ["a.b.", "a.b/"): "/" is the character after ".".
  const high = `${low.slice(0, -1)}/`;
  return { sql: "ns_path >= ? AND ns_path < ?", params: [low, high] };
}

/** One listNamespaces condition: labels at the start (prefix) or end (suffix), "*" matching any label. */
export function matchCondition(condition: MatchCondition): SqlCondition {
  const parts: string[] = ["depth >= ?"];
  const params: unknown[] = [condition.path.length];
  condition.path.forEach((label, i) => {
    if (label === "*") return;
    const index = condition.matchType === "prefix" ? `$[${i}]` : `$[#-${condition.path.length - i}]`;
    parts.push("json_extract(ns, ?) = ?");
    params.push(index, label);
  });
  return { sql: parts.join(" AND "), params };
}

/**
 * The namespace cut to `maxDepth` labels, as a JSON array expression over
 * column `ns` of `table` (the whole namespace when no depth is given).
 */
export function truncatedNamespace(table: string, maxDepth: number | undefined): SqlCondition {
  if (maxDepth === undefined) return { sql: `${table}.ns`, params: [] };
  return {
    sql: `CASE WHEN ${table}.depth <= ? THEN ${table}.ns ELSE (
            SELECT json_group_array(value) FROM (SELECT value FROM json_each(${table}.ns) WHERE key < ? ORDER BY key)
          ) END`,
    params: [maxDepth, maxDepth],
  };
}
