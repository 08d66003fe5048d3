/**
 * Compiles a `BaseStore` search filter into a PostgreSQL condition on the JSONB value column: the same
 * operators and typed semantics as the SQLite compiler (filter-sql.ts), with the same refusals.
 * @module
 */
import { UserInputError } from "../errors.js";
import { checkFieldName, isOperatorObject, MAX_FILTER_TERMS } from "./filter-sql.js";
import type { PgParams } from "./pg-params.js";

/** The SQL naming the field, its parameter added on first use. */
type Target = () => string;

const COMPARISON: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };

/**
 * `{ field: value }` is typed equality (JSONB equality never matches a string with a number);
 * `$gt`/`$gte`/`$lt`/`$lte` compare numbers numerically and strings by code point (so ISO dates work,
 * whatever the database's collation); a value of the other type never matches. Keys name top-level fields.
 */
export function compilePgFilter(filter: Record<string, unknown> | undefined, params: PgParams, column = "value"): string {
  if (Object.keys(filter ?? {}).length > MAX_FILTER_TERMS) {
    throw new UserInputError("BAD_INPUT", `store filter: at most ${MAX_FILTER_TERMS} fields`);
  }
  const parts: string[] = [];
  for (const [field, condition] of Object.entries(filter ?? {})) {
    checkFieldName(field);
    // The field is a parameter, so any name (quotes, backslashes, dots) is just a key; it is added only once
    // used (an empty $in needs none, and an unreferenced parameter has no type PostgreSQL can infer).
    let placeholder: string | undefined;
    const target = () => `${column} -> ${(placeholder ??= params.add(field, "text"))}`;
    if (isOperatorObject(condition)) {
      for (const [op, operand] of Object.entries(condition)) parts.push(compileOperator(target, op, operand, params));
    } else {
      parts.push(equals(target, condition, params));
    }
  }
  return parts.length === 0 ? "TRUE" : parts.map((p) => `(${p})`).join(" AND ");
}

function compileOperator(target: Target, op: string, operand: unknown, params: PgParams): string {
  switch (op) {
    case "$eq":
      return equals(target, operand, params);
    case "$ne":
      return negate(equals(target, operand, params));
    case "$in":
      return anyOf(target, op, operand, params);
    case "$nin":
      return negate(anyOf(target, op, operand, params));
    default:
      return compare(target, op, operand, params);
  }
}

function jsonText(value: unknown): string {
  if (value !== null && !["boolean", "number", "string", "object"].includes(typeof value)) {
    throw new UserInputError("BAD_INPUT", `store filter: cannot compare with a ${typeof value}`);
  }
  return JSON.stringify(value);
}

function equals(target: Target, value: unknown, params: PgParams): string {
  return `${target()} = ${params.add(jsonText(value), "jsonb")}`;
}

function compare(target: Target, op: string, operand: unknown, params: PgParams): string {
  const sqlOp = COMPARISON[op];
  if (sqlOp === undefined) throw new UserInputError("BAD_INPUT", `store filter: unknown operator ${op}`);
  if (typeof operand === "number") {
    // JSONB orders numbers numerically, and a value of another type never passes the type test.
    return `jsonb_typeof(${target()}) = 'number' AND ${target()} ${sqlOp} ${params.add(JSON.stringify(operand), "jsonb")}`;
  }
  if (typeof operand === "string") {
    return `jsonb_typeof(${target()}) = 'string' AND (${target()} #>> '{}') COLLATE "C" ${sqlOp} ${params.add(operand, "text")}`;
  }
  throw new UserInputError("BAD_INPUT", `store filter: ${op} needs a number or a string`);
}

function anyOf(target: Target, op: string, operand: unknown, params: PgParams): string {
  if (!Array.isArray(operand)) throw new UserInputError("BAD_INPUT", `store filter: ${op} needs an array`);
  if (operand.length === 0) return "FALSE";
  if (operand.length > MAX_FILTER_TERMS) throw new UserInputError("BAD_INPUT", `store filter: ${op} takes at most ${MAX_FILTER_TERMS} values`);
  return `${target()} = ANY(${params.add(operand.map(jsonText), "jsonb[]")})`;
}

function negate(condition: string): string {
  // A missing field makes the condition NULL; NOT NULL would drop the row, but "missing" is "not equal".
  return `NOT COALESCE((${condition}), FALSE)`;
}
