/**
 * Deep copies of decoded channel values for the decoded-value cache: a long thread's history is copied on every read,
 * so the tree is studied once ({@link planCopy}) and each copy ({@link freshCopy}) skips what that settled. Measured
 * on a 300-turn history (1,200 messages, 9,600 objects), in one process: 7.2 ms CPU a copy by descriptors, 2.9 ms
 * this way with Object.keys, 1.6 → 1.4 ms with for...in (another run, less loaded); a plan of numbered slots instead
 * of a Map of marked objects: 4,000 messages 6.5 → 5.0 ms CPU a copy (bench/_profile-history.ts's thread, one process),
 * and the copies of objects reached twice in an array by number instead of a Map: 5.7 → 4.6 ms (load 12).
 * @module
 */
import { BaseMessage } from "@langchain/core/messages";

/** Deeper trees are not cached (and not walked further). */
const MAX_DEPTH = 64;

const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** A serde-revived DeltaSnapshot: a class instance that is only a marker and a value. */
const isSnapshot = (value: object): value is { lg_name: string; value: unknown } =>
  (value as { lg_name?: unknown }).lg_name === "DeltaSnapshot" && Object.keys(value).every((k) => k === "lg_name" || k === "value");

/**
 * What a copy of a cached tree must take care of, learnt once when it is stored, as one slot per object reached, in
 * the order a copy reaches them: whether it is reached again later (a message's field and its `lc_kwargs` twin),
 * which must stay one object in the copy; whether this is such a later reach; and whether it is a class instance
 * whose own properties plain assignment would not reproduce (a read-only or hidden field, or a setter of that name
 * up the prototype chain), copied descriptor by descriptor. A numbered slot costs a copy an array read per object
 * where a Map keyed by object cost a hash lookup.
 */
export interface CopyPlan {
  /**
   * Per object reach, in the copy's order (depth first, fields in `for...in` order): flags in the low
   * {@link FLAG_BITS} bits, and for an object reached more than once its number among those (its copy's place).
   */
  readonly slots: Uint32Array;
  /** The objects reached more than once, by number: a later reach must find the same object. */
  readonly shared: readonly object[];
}
/** The first reach of an object reached more than once: its copy is kept under its number. */
const SHARED = 1;
/** Copied by property descriptors. */
const SPECIAL = 2;
/** A later reach of a SHARED object: the copy already made. */
const AGAIN = 4;
const FLAG_BITS = 3;

/** Per prototype: whether assigning an own property of that name defines a plain data property (no setter, not read-only). */
const assignable = new WeakMap<object, Map<PropertyKey, boolean>>();

/** Names remembered per prototype: plain objects' keys are data (ids, tool arguments), unbounded in number. */
const MAX_KNOWN_KEYS = 1024;

function assignsPlainly(prototype: object, key: PropertyKey): boolean {
  // A plain object's own key that Object.prototype lacks is always plain: no need to remember every key ever seen.
  if (prototype === Object.prototype && !(key in Object.prototype)) return true;
  let known = assignable.get(prototype);
  if (known === undefined) assignable.set(prototype, (known = new Map()));
  let plain = known.get(key);
  if (plain === undefined) {
    plain = true;
    for (let at: object | null = prototype; at !== null; at = Object.getPrototypeOf(at) as object | null) {
      const inherited = Object.getOwnPropertyDescriptor(at, key);
      if (inherited === undefined) continue;
      plain = "value" in inherited && inherited.writable === true;
      break;
    }
    if (known.size < MAX_KNOWN_KEYS) known.set(key, plain);
  }
  return plain;
}

/** Per prototype: whether it or one up its chain has an enumerable property, which `for...in` would list too. */
const enumerableInherited = new WeakMap<object, boolean>();

function inheritsEnumerable(prototype: object): boolean {
  let found = enumerableInherited.get(prototype);
  if (found === undefined) {
    found = false;
    for (let at: object | null = prototype; at !== null && !found; at = Object.getPrototypeOf(at) as object | null) {
      for (const key in at) if (Object.prototype.propertyIsEnumerable.call(at, key)) found = true;
    }
    enumerableInherited.set(prototype, found);
  }
  return found;
}

/**
 * Whether every own property of `value` is a plain data property that assignment would recreate, and `for...in`
 * lists exactly its own properties.
 */
function copiesPlainly(value: object, prototype: object | null): boolean {
  if (prototype !== null && inheritsEnumerable(prototype)) return false;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !("value" in descriptor)) return false;
    if (descriptor.writable !== true || descriptor.enumerable !== true || descriptor.configurable !== true) return false;
    // Spread and Object.assign skip an object under a symbol key when copying fields again.
    if (typeof key === "symbol" && descriptor.value !== null && typeof descriptor.value === "object") return false;
    // An own "__proto__" of a parsed plain object would set the copy's prototype if assigned.
    if (prototype !== null && !assignsPlainly(prototype, key)) return false;
  }
  return true;
}

/**
 * The {@link CopyPlan} of a tree, or undefined when {@link freshCopy} cannot copy it: only primitives, arrays, plain
 * objects, DeltaSnapshots and messages (plain data with a prototype; their own fields pass the same test) can be.
 * A Map, a typed array or a Date would lose its internal slots. `depth`: where the tree sits in a larger one.
 */
export function planCopy(root: unknown, depth = 0): CopyPlan | undefined {
  const slots: number[] = [];
  const shared: object[] = [];
  // The slot of each object's first reach, to mark it SHARED when it is reached again.
  const firstSlot = new Map<object, number>();
  const walk = (value: unknown, depth: number): boolean => {
    if (value === null || typeof value !== "object") return typeof value !== "function" && typeof value !== "symbol";
    const first = firstSlot.get(value);
    if (first !== undefined) {
      let flags = slots[first] ?? 0;
      if ((flags & SHARED) === 0) {
        flags |= SHARED | (shared.push(value) - 1) << FLAG_BITS;
        slots[first] = flags;
      }
      slots.push(AGAIN | (flags >>> FLAG_BITS) << FLAG_BITS);
      return true;
    }
    if (depth >= MAX_DEPTH) return false;
    const slot = slots.push(0) - 1;
    firstSlot.set(value, slot);
    if (Array.isArray(value)) {
      // A copy takes the items only: an array with other own properties (or holes) would lose them.
      if (Object.getPrototypeOf(value) !== Array.prototype || Object.keys(value).length !== value.length) return false;
      for (const item of value) if (!walk(item, depth + 1)) return false;
      return true;
    }
    const prototype = Object.getPrototypeOf(value) as object | null;
    if (!isPlainObject(value) && !isSnapshot(value) && !BaseMessage.isInstance(value)) return false;
    if (!copiesPlainly(value, prototype)) slots[slot] = (slots[slot] ?? 0) | SPECIAL;
    // Reflect.ownKeys lists string keys in for...in's order; a plain object's symbol keys hold no object.
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor === undefined) continue;
      // An own getter or setter may keep state in a closure that copies would share.
      if (!("value" in descriptor) || !walk(descriptor.value, depth + 1)) return false;
    }
    return true;
  };
  return walk(root, depth) ? { slots: Uint32Array.from(slots), shared } : undefined;
}

/**
 * The plan of a tree whose walk is `prefix`'s, then each of `parts`' in order, without walking it again: for a new
 * DeltaSnapshot built of items planned one by one (planCopy of a 4,000-message history is ~50 ms, a join ~0.1 ms).
 * Only when no object is reached from two of them (each part its own tree, the prefix's objects in none); the parts
 * planned at the depth they sit at in the tree.
 */
export function joinPlans(prefix: CopyPlan, parts: readonly CopyPlan[]): CopyPlan {
  let length = prefix.slots.length;
  for (const part of parts) length += part.slots.length;
  const slots = new Uint32Array(length);
  slots.set(prefix.slots);
  const shared = [...prefix.shared];
  let at = prefix.slots.length;
  for (const part of parts) {
    // A part's numbers of objects reached more than once follow those of the parts before it.
    const offset = shared.length;
    for (const flags of part.slots) slots[at++] = (flags & (SHARED | AGAIN)) === 0 ? flags : flags + (offset << FLAG_BITS);
    for (const object of part.shared) shared.push(object);
  }
  return { slots, shared };
}

/** Thrown when a cached tree no longer has the shape its plan was made of: something changed a cached value. */
export class CachedValueChangedError extends Error {
  /** Stable code. */
  readonly code = "INTERNAL";
  constructor() {
    super("a cached decoded value was changed after it was stored (a read-only view's reader must not change what it reads)");
  }
}

/** One copy under way: its plan, the next slot, the copies of objects reached more than once by number. */
interface Copier {
  slots: Uint32Array;
  shared: readonly object[];
  at: number;
  copies: unknown[];
}

/**
 * A deep copy keeping prototypes (a message stays an AIMessage) and shared references (a field and its `lc_kwargs`
 * twin stay one object), so nothing a reader changes reaches the cached tree. It is on every read of a long thread
 * (thousands of messages, eight objects each), so what {@link planCopy} settled is not checked again: an object is
 * copied in one go (spread, `slice`, `Object.assign`) and only its object-valued fields are copied again; only the
 * objects reached twice are kept (by their number, an array slot), and only the odd one goes through property descriptors.
 */
export function freshCopy(value: unknown, plan: CopyPlan): unknown {
  return copyWithPlan(value, plan).copy;
}

/** {@link freshCopy}, with the copy's own plan (the same slots, its own objects reached more than once). */
export function copyWithPlan(value: unknown, plan: CopyPlan): { copy: unknown; plan: CopyPlan } {
  if (value === null || typeof value !== "object") return { copy: value, plan };
  const copier: Copier = { slots: plan.slots, shared: plan.shared, at: 0, copies: new Array<unknown>(plan.shared.length) };
  const copy = copyObject(value, copier);
  // Every slot taken, no more: the tree still has the shape it was planned with.
  if (copier.at !== plan.slots.length) throw new CachedValueChangedError();
  return { copy, plan: { slots: plan.slots, shared: copier.copies as object[] } };
}

function copyObject(value: object, copier: Copier): unknown {
  const flags = copier.slots[copier.at++] ?? 0;
  // Its number among the objects reached more than once (meaningful with SHARED or AGAIN).
  const number = flags >>> FLAG_BITS;
  if ((flags & AGAIN) !== 0) {
    if (copier.shared[number] !== value) throw new CachedValueChangedError();
    return copier.copies[number];
  }
  const twice = (flags & SHARED) !== 0;
  if (twice && copier.shared[number] !== value) throw new CachedValueChangedError();
  if (Array.isArray(value)) {
    const copy = (value as unknown[]).slice();
    if (twice) copier.copies[number] = copy;
    for (let i = 0; i < copy.length; i++) {
      const item = copy[i];
      if (item !== null && typeof item === "object") copy[i] = copyObject(item, copier);
    }
    return copy;
  }
  if ((flags & SPECIAL) !== 0) return copyByDescriptors(value, copier, twice ? number : -1);
  const prototype = Object.getPrototypeOf(value) as object | null;
  // Own enumerable properties, symbol-keyed ones too (a message's type marker): planCopy let through only plain data
  // properties that spread and assignment recreate as they were.
  const copy = (prototype === Object.prototype ? { ...value } : Object.assign(Object.create(prototype) as object, value)) as Record<string, unknown>;
  if (twice) copier.copies[number] = copy;
  // for...in, the fastest walk of an object's keys, lists only its own: planCopy checked the prototype chain.
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== null && typeof field === "object") copy[key] = copyObject(field, copier);
  }
  return copy;
}

/** The copy of an object with a hidden or read-only property, or an object under a symbol key. */
function copyByDescriptors(value: object, copier: Copier, number: number): unknown {
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as object;
  if (number >= 0) copier.copies[number] = copy;
  for (const key of Reflect.ownKeys(value)) {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined) continue;
    const field: unknown = descriptor.value;
    if ("value" in descriptor && field !== null && typeof field === "object") descriptor.value = copyObject(field, copier);
    Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}

/** What {@link copyOrForget} returns for a tree changed since it was planned. */
export const CHANGED: unique symbol = Symbol("changed since planned");

/** {@link freshCopy}, or {@link CHANGED} when the tree no longer matches its plan (its cache entry is then dropped). */
export function copyOrForget(value: unknown, plan: CopyPlan): unknown {
  try {
    return freshCopy(value, plan);
  } catch (error) {
    if (error instanceof CachedValueChangedError) return CHANGED;
    throw error;
  }
}
