/**
 * Compiles a `BaseStore` search filter into a SQL condition on the JSON value
 * column, so SQLite (json_type / json_extract) does the filtering, not JS.
 * @module
 */
import { UserInputError } from "../errors.js";

/** A SQL condition with its bound parameters. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);
const COMPARISON: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

/**
 * `{ field: value }` is typed equality (a string never equals a number);
 * `{ field: { $op: v } }` uses operators like LangGraph's InMemoryStore.
 * `$gt`/`$gte`/`$lt`/`$lte` compare numbers numerically and strings
 * lexicographically (so ISO dates work); a value of the other type never matches.
 * Keys name top-level fields of the stored value.
 */
export function compileFilter(filter: Record<string, unknown> | undefined, column = "value"): SqlCondition {
  // SQLite refuses expressions nested deeper than 1000: long AND/OR chains fail at prepare time.
  if (Object.keys(filter ?? {}).length > MAX_FILTER_TERMS) {
    throw new UserInputError("BAD_INPUT", `store filter: at most ${MAX_FILTER_TERMS} fields`);
  }
  const parts: SqlCondition[] = [];
  for (const [field, condition] of Object.entries(filter ?? {})) {
    const path = jsonPath(field);
    if (isOperatorObject(condition)) {
      for (const [op, operand] of Object.entries(condition)) parts.push(compileOperator(column, path, op, operand));
    } else {
      parts.push(typedEquals(column, path, condition));
    }
  }
  if (parts.length === 0) return { sql: "1", params: [] };
  return { sql: parts.map((p) => `(${p.sql})`).join(" AND "), params: parts.flatMap((p) => p.params) };
}

/** Most fields of a filter, and values of one $in/$nin. */
export const MAX_FILTER_TERMS = 200;

/** True for `{ $op: operand, … }` (every key an operator); anything else is a value to compare for equality. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => OPERATORS.has(k));
}

/** Refuses a field name no stored value can have. */
export function checkFieldName(field: string): void {
  if (field === "") throw new UserInputError("BAD_INPUT", "store filter: empty field name");
}

function jsonPath(field: string): string {
  checkFieldName(field);
  // SQLite decodes JSON string escapes in a quoted label: a backslash or quote in the name must be escaped.
  return `$.${JSON.stringify(field)}`;
}

function compileOperator(column: string, path: string, op: string, operand: unknown): SqlCondition {
  switch (op) {
    case "$eq":
      return typedEquals(column, path, operand);
    case "$ne":
      return negate(typedEquals(column, path, operand));
    case "$in":
      return anyOf(column, path, op, operand);
    case "$nin":
      return negate(anyOf(column, path, op, operand));
    default:
      return compare(column, path, op, operand);
  }
}

function typedEquals(column: string, path: string, value: unknown): SqlCondition {
  const type = `json_type(${column}, ?)`;
  const extract = `json_extract(${column}, ?)`;
  if (value === null) return { sql: `${type} = 'null'`, params: [path] };
  switch (typeof value) {
    case "boolean":
      return { sql: `${type} = ?`, params: [path, value ? "true" : "false"] };
    case "number":
      return { sql: `${type} IN ('integer', 'real') AND ${extract} = ?`, params: [path, path, value] };
    case "string":
      return { sql: `${type} = 'text' AND ${extract} = ?`, params: [path, path, value] };
    case "object":
      // Same JSON text: objects compare with their keys in the same order.
      return { sql: `${type} IN ('object', 'array') AND ${extract} = json(?)`, params: [path, path, JSON.stringify(value)] };
    default:
      throw new UserInputError("BAD_INPUT", `store filter: cannot compare with a ${typeof value}`);
  }
}

function compare(column: string, path: string, op: string, operand: unknown): SqlCondition {
  const sqlOp = COMPARISON[op];
  if (sqlOp === undefined) throw new UserInputError("BAD_INPUT", `store filter: unknown operator ${op}`);
  const type = `json_type(${column}, ?)`;
  const extract = `json_extract(${column}, ?)`;
  if (typeof operand === "number") {
    return { sql: `${type} IN ('integer', 'real') AND ${extract} ${sqlOp} ?`, params: [path, path, operand] };
  }
  if (typeof operand === "string") {
    return { sql: `${type} = 'text' AND ${extract} ${sqlOp} ?`, params: [path, path, operand] };
  }
  throw new UserInputError("BAD_INPUT", `store filter: ${op} needs a number or a string`);
}

function anyOf(column: string, path: string, op: string, operand: unknown): SqlCondition {
  if (!Array.isArray(operand)) throw new UserInputError("BAD_INPUT", `store filter: ${op} needs an array`);
  if (operand.length === 0) return { sql: "0", params: [] };
  if (operand.length > MAX_FILTER_TERMS) throw new UserInputError("BAD_INPUT", `store filter: ${op} takes at most ${MAX_FILTER_TERMS} values`);
  const parts = operand.map((v) => typedEquals(column, path, v));
  return { sql: parts.map((p) => `(${p.sql})`).join(" OR "), params: parts.flatMap((p) => p.params) };
}

function negate(condition: SqlCondition): SqlCondition {
  // A missing field makes the condition NULL; NOT NULL would drop the row, but "missing" is "not equal".
  return { sql: `NOT COALESCE((${condition.sql}), 0)`, params: condition.params };
}
