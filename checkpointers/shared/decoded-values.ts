/**
 * A per-process cache of decoded channel values, keyed by their immutable blob key (thread, namespace, channel,
 * version). A long thread's message history is one large blob (a DeltaSnapshot of thousands of messages) that every
 * read of the thread decodes again, and reviving LangChain messages costs ~100 µs each: a 1,000-turn thread paid
 * half a second per state read. Only what cannot be corrupted is shared: a cached tree is deep-frozen, and each read
 * gets its own copies of the arrays and plain objects around the (frozen, shared) message instances, so a caller
 * that pushes to `messages` or edits a plain field changes only its copy, and one that assigns to a message throws.
 * @module
 */
import { BaseMessage } from "@langchain/core/messages";

/**
 * Values stored smaller than this decode fast enough; caching them would only cost memory and copies. Stored bytes
 * are often deflated (a 60-message history can store in 600 bytes), so the bar is low.
 */
const MIN_BYTES = 256;
/** Entries kept (least recently used first out) and the stored bytes they may hold together. */
const MAX_ENTRIES = 32;
const MAX_BYTES = 64 * 1024 * 1024;
/**
 * Versions minted by `nextChannelVersion` (counter + 32 random bits): two different values never share one, even
 * across a deleted and re-created thread. Integer versions of other savers can repeat, so their values are not cached.
 */
const MINTED_VERSION = /^\d{16}\.[0-9a-z]{7}$/;
/** Deeper trees are not cached (and not walked further). */
const MAX_DEPTH = 64;

interface Entry {
  value: unknown;
  bytes: number;
}

/** Decoded blob values, shared between reads as frozen trees handed out in fresh containers. */
export class DecodedValues {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  /**
   * The value of blob (thread, ns, channel, version): from the cache, or `decode()`'s, cached when it is large,
   * its version one this saver minted and its tree only arrays, plain objects, messages and DeltaSnapshots.
   */
  async load(key: { thread: string; ns: string; channel: string; version: unknown }, stored: Uint8Array | string | null, decode: () => unknown): Promise<unknown> {
    const size = stored === null ? 0 : typeof stored === "string" ? stored.length : stored.byteLength;
    if (size < MIN_BYTES || typeof key.version !== "string" || !MINTED_VERSION.test(key.version)) return decode();
    const id = `${key.thread}\u0000${key.ns}\u0000${key.channel}\u0000${key.version}`;
    const hit = this.entries.get(id);
    if (hit !== undefined) {
      // Re-inserted: the Map's order is the recency order.
      this.entries.delete(id);
      this.entries.set(id, hit);
      return freshCopy(hit.value);
    }
    const value = await decode();
    if (!shareable(value, 0)) return value;
    deepFreeze(value);
    this.store(id, { value, bytes: size });
    return freshCopy(value);
  }

  /** Forgets every value of a thread (after it was deleted, pruned or overwritten by a copy). */
  forgetThread(thread: string): void {
    const prefix = `${thread}\u0000`;
    for (const [id, entry] of this.entries) {
      if (!id.startsWith(prefix)) continue;
      this.entries.delete(id);
      this.bytes -= entry.bytes;
    }
  }

  private store(id: string, entry: Entry): void {
    if (entry.bytes > MAX_BYTES) return;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size < MAX_ENTRIES && this.bytes + entry.bytes <= MAX_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
    this.entries.set(id, entry);
    this.bytes += entry.bytes;
  }
}

const isPlainObject = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** A serde-revived DeltaSnapshot: a class instance that is only a marker and a value. */
const isSnapshot = (value: object): value is { lg_name: string; value: unknown } =>
  (value as { lg_name?: unknown }).lg_name === "DeltaSnapshot" && Object.keys(value).every((k) => k === "lg_name" || k === "value");

/**
 * Whether a tree can be frozen and shared: primitives, arrays, plain objects, DeltaSnapshots and messages with an id
 * (whose own fields pass the same test). A Map, a typed array or any other class instance could still be mutated frozen.
 */
function shareable(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== "object") return typeof value !== "function" && typeof value !== "symbol";
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (const item of value) if (!shareable(item, depth + 1)) return false;
    return true;
  }
  // A message without an id is one messagesStateReducer would give one by assignment: it must stay writable.
  if (BaseMessage.isInstance(value) ? typeof value.id !== "string" : !isPlainObject(value) && !isSnapshot(value)) return false;
  for (const key of Object.keys(value)) if (!shareable((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/** New arrays, plain objects and DeltaSnapshots around the shared frozen messages (which stay as they are). */
function freshCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(freshCopy);
  if (BaseMessage.isInstance(value)) return value;
  const copy: Record<string, unknown> = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
  for (const key of Object.keys(value)) copy[key] = freshCopy((value as Record<string, unknown>)[key]);
  return copy;
}
