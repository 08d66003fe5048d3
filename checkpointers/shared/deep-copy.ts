/**
 * Deep copies of decoded checkpoint data, for caches that keep a decoded tree private and hand every reader its
 * own copy (callers change what they read: agentrt's approval path assigns an AIMessage's `tool_calls`).
 * Which copy a tree needs is decided once, when it is cached ({@link copyKind}); each read then pays only the copy.
 * @module
 */
import { BaseMessage } from "@langchain/core/messages";

/** Deeper trees are not copied (and not walked further): a cache keeps such a value undecoded. */
const MAX_DEPTH = 64;

/**
 * How a tree can be copied: "plain" (arrays, plain objects and primitives, no object reached twice: what
 * JSON.parse makes) by {@link copyPlain}, about half the cost of the general copy; "prototypes" (messages,
 * DeltaSnapshots, shared references) by {@link copyKeepingPrototypes}; null when no copy here is faithful.
 */
export type CopyKind = "plain" | "prototypes" | null;

/** The cheapest faithful copy for `value`; walks the whole tree (once, when it is cached). */
export function copyKind(value: unknown): CopyKind {
  if (isPlainTree(value, 0, new Set())) return "plain";
  return shareable(value, 0) ? "prototypes" : null;
}

/** Copies a tree {@link copyKind} called "plain". */
export function copyPlain(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) copy[i] = copyPlain(value[i]);
    return copy;
  }
  const copy: Record<string, unknown> = {};
  // for-in: a plain tree's objects have Object.prototype and no key "__proto__" (copyKind checked both).
  for (const key in value) copy[key] = copyPlain((value as Record<string, unknown>)[key]);
  return copy;
}

/** Copies a tree {@link copyKind} called "plain" or "prototypes". */
export function copyOf(value: unknown, kind: Exclude<CopyKind, null>): unknown {
  return kind === "plain" ? copyPlain(value) : copyKeepingPrototypes(value);
}

/** Plain data only, every object once (a shared object would become two), no key a plain copy would mishandle. */
function isPlainTree(value: unknown, depth: number, seen: Set<object>): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return true;
    case "object":
      break;
    case "undefined":
    case "bigint":
      return true;
    default:
      return false;
  }
  if (depth >= MAX_DEPTH || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isPlainTree(value[i], depth + 1, seen)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  // Enumerable string keys only, as copyPlain copies them: decoded data (JSON.parse, a serde's revive) has no others.
  for (const key in value) {
    if (key === "__proto__" || !isPlainTree((value as Record<string, unknown>)[key], depth + 1, seen)) return false;
  }
  return true;
}

const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** A serde-revived DeltaSnapshot: a class instance that is only a marker and a value. */
const isSnapshot = (value: object): value is { lg_name: string; value: unknown } =>
  (value as { lg_name?: unknown }).lg_name === "DeltaSnapshot" && Object.keys(value).every((k) => k === "lg_name" || k === "value");

/**
 * Whether a tree can be copied by {@link copyKeepingPrototypes}: primitives, arrays, plain objects, DeltaSnapshots
 * and messages (plain data with a prototype; their own fields pass the same test). A Map, a typed array or a Date
 * would lose its internal slots.
 */
export function shareable(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "function" && typeof value !== "symbol";
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (const item of value) if (!shareable(item, depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value) && !isSnapshot(value) && !BaseMessage.isInstance(value)) return false;
  for (const key of Object.keys(value)) {
    // A plain copy assigns keys: this one would set the copy's prototype instead.
    if (key === "__proto__") return false;
    if (!shareable((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * A deep copy keeping prototypes (a message stays an AIMessage) and shared references (a field and its `lc_kwargs`
 * twin stay one object), so nothing a reader changes reaches the cached tree.
 */
export function copyKeepingPrototypes(value: unknown, seen = new Map<object, unknown>()): unknown {
  if (value === null || typeof value !== "object") return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(copyKeepingPrototypes(item, seen));
    return copy;
  }
  const prototype = Object.getPrototypeOf(value) as object | null;
  const copy: Record<PropertyKey, unknown> = Object.create(prototype) as Record<PropertyKey, unknown>;
  seen.set(value, copy);
  if (prototype === Object.prototype || prototype === null) {
    for (const key of Object.keys(value)) copy[key] = copyKeepingPrototypes((value as Record<string, unknown>)[key], seen);
    return copy;
  }
  // A class instance: every own property as defined, symbol-keyed and non-enumerable ones too (a message's type markers).
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined) continue;
    if ("value" in descriptor) descriptor.value = copyKeepingPrototypes(descriptor.value, seen);
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}
