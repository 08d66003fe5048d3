/**
 * Namespace encoding and the SQL conditions on it: prefix ranges for search,
 * prefix/suffix patterns with "*" wildcards for listNamespaces.
 * @module
 */
import { type MatchCondition, validateNamespace } from "@langchain/langgraph-checkpoint";
import { UserInputError } from "../errors.js";
import type { SqlCondition } from "./filter-sql.js";

/** Most labels of a namespace, prefix or suffix. */
const MAX_NAMESPACE_LABELS = 100;

/** Labels joined by "." plus a trailing "." ("users.alice."); labels never contain ".". */
export function namespacePath(namespace: readonly string[]): string {
  return namespace.map((label) => `${label}.`).join("");
}

/** Throws InvalidNamespaceError for what LangGraph's stores refuse (empty, ".", ":", NUL). */
export function checkNamespace(namespace: string[], allowEmpty = false): void {
  validateNamespace(namespace, { allowEmpty, allowReservedRoot: true });
  // Each label is a term of the match condition, which SQLite caps at expression depth 1000.
  if (namespace.length > MAX_NAMESPACE_LABELS) {
    throw new UserInputError("BAD_INPUT", `store namespace: at most ${MAX_NAMESPACE_LABELS} labels, got ${namespace.length}`);
  }
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
  if (condition.path.length > MAX_NAMESPACE_LABELS) {
    throw new UserInputError("BAD_INPUT", `store namespaces: a ${condition.matchType} has at most ${MAX_NAMESPACE_LABELS} labels, got ${condition.path.length}`);
  }
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
