/**
 * The length of `JSON.stringify(value)` without building the string, for the scripted model's input tokens: on a
 * long thread, stringifying every tool call again was most of a reply's time. Plain objects, arrays, strings,
 * numbers, booleans and null are walked; anywhere else (a `toJSON`, which `JSON.stringify` calls with the key, a
 * class instance, a bigint, a tree deeper than {@link MAX_DEPTH}: a cycle) the whole value is handed to
 * `JSON.stringify` itself, so the answer is always its length.
 * @module
 */

/** Deeper values are measured by `JSON.stringify` (which throws on a cycle, as before). */
const MAX_DEPTH = 32;

/** Characters `JSON.stringify` escapes (control characters, quote, backslash) or may (surrogates, when lone). */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

function stringLength(s: string): number {
  return ESCAPED.test(s) ? JSON.stringify(s).length : s.length + 2;
}

const isPlain = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** Thrown where the walk cannot give `JSON.stringify`'s length exactly: the whole value is stringified instead. */
class Unwalkable extends Error {}
const UNWALKABLE = new Unwalkable("not walkable: stringified whole");

/** Values an object's property is left out for (and an array writes `null` for); a function with a `toJSON` is not. */
function omitted(value: unknown): boolean {
  if (typeof value === "function" && typeof (value as { toJSON?: unknown }).toJSON === "function") throw UNWALKABLE;
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function measure(value: unknown, depth: number): number {
  switch (typeof value) {
    case "string":
      return stringLength(value);
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object":
      break;
    default:
      throw UNWALKABLE;
  }
  if (value === null) return 4;
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function") throw UNWALKABLE;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) throw UNWALKABLE;
    let length = 2 + Math.max(0, value.length - 1);
    for (let i = 0; i < value.length; i++) length += omitted(value[i]) ? 4 : measure(value[i], depth + 1);
    return length;
  }
  if (!isPlain(value)) throw UNWALKABLE;
  let length = 2;
  let fields = 0;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    if (omitted(field)) continue;
    length += stringLength(key) + 1 + measure(field, depth + 1);
    fields++;
  }
  return length + Math.max(0, fields - 1);
}

/** `JSON.stringify(value).length`, for a value that stringifies to a string (an object, an array, a primitive). */
export function jsonLength(value: unknown): number {
  try {
    return measure(value, 0);
  } catch (error) {
    if (error !== UNWALKABLE) throw error;
    return (JSON.stringify(value) as string | undefined)?.length ?? 0;
  }
}
