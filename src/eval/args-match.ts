/**
 * Argument predicates of expected tool calls: a literal (deep-equal),
 * `{ "$contains": x }` (substring, or array element) or `{ "$regex": "…" }`.
 * @module
 */
import { isContainsPredicate, isRegexPredicate } from "./case-schema.js";

/** True when every predicate in `expected` holds for the call's `args`. */
export function argsMatch(args: unknown, expected: Record<string, unknown> | undefined): boolean {
  if (expected === undefined) return true;
  if (typeof args !== "object" || args === null) return Object.keys(expected).length === 0;
  const actual = args as Record<string, unknown>;
  return Object.entries(expected).every(([key, predicate]) => valueMatches(actual[key], predicate));
}

/** One argument against one predicate. */
export function valueMatches(value: unknown, predicate: unknown): boolean {
  if (isRegexPredicate(predicate)) {
    return value !== undefined && new RegExp(predicate.$regex).test(typeof value === "string" ? value : JSON.stringify(value));
  }
  if (isContainsPredicate(predicate)) {
    const needle = predicate.$contains;
    if (typeof value === "string") return typeof needle === "string" && value.includes(needle);
    if (Array.isArray(value)) return value.some((item) => deepEqual(item, needle));
    return false;
  }
  return deepEqual(value, predicate);
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => k in bo && deepEqual((a as Record<string, unknown>)[k], bo[k]));
}
