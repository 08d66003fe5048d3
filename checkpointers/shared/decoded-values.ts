/**
 * A per-process cache of decoded channel values, keyed by their immutable blob key (thread, namespace, channel,
 * version). A long thread's message history is one large blob (a DeltaSnapshot of thousands of messages) that every
 * read of the thread decodes again, and reviving LangChain messages costs ~100 µs each: a 1,000-turn thread paid
 * half a second per state read. Nothing cached is handed out: each read gets a deep copy (prototypes kept; see
 * fresh-copy.ts, ~2.5 µs a message), because callers do change what they read (the HITL middleware assigns
 * `tool_calls` of an AIMessage from state; a frozen, shared tree made that run fail).
 * @module
 */
import type { SnapshotReviver } from "./codec.js";
import { CHANGED, copyOrForget, freshCopy, planCopy, type CopyPlan } from "./fresh-copy.js";
import { SnapshotItems } from "./snapshot-items.js";

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

interface Entry {
  value: unknown;
  bytes: number;
  plan: CopyPlan;
}

/** Decoded blob values, kept private and handed out as deep copies. */
export class DecodedValues {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** The items of each channel's last DeltaSnapshot decoded here, so the next one revives only its new items. */
  private readonly items = new SnapshotItems();

  /**
   * The value of blob (thread, ns, channel, version): from the cache, or `decode()`'s, cached when it is large,
   * its version one this saver minted and its tree only arrays, plain objects, messages and DeltaSnapshots. With
   * `share`, a cached value is the cache's own (for a read-only view's reader, which changes nothing it reads).
   * `decode` is given a DeltaSnapshot reviver (for Codec.load) only when the value will be cached.
   */
  load(key: { thread: string; ns: string; channel: string; version: unknown }, stored: Uint8Array | string | null, decode: (snapshot?: SnapshotReviver) => unknown, share = false): unknown {
    const size = stored === null ? 0 : typeof stored === "string" ? stored.length : stored.byteLength;
    // Not cached: decoded as the caller would have, with no promise of its own (a getTuple reads several such values).
    if (size < MIN_BYTES || typeof key.version !== "string" || !MINTED_VERSION.test(key.version)) return decode();
    const id = `${key.thread}\u0000${key.ns}\u0000${key.channel}\u0000${key.version}`;
    const hit = this.entries.get(id);
    if (hit !== undefined) {
      // Re-inserted: the Map's order is the recency order.
      this.entries.delete(id);
      this.entries.set(id, hit);
      if (share) return hit.value;
      const copy = copyOrForget(hit.value, hit.plan);
      if (copy !== CHANGED) return copy;
      // A shared reader changed the kept tree (see CachedValueChangedError): decoded again and stored over it.
    }
    return this.decodeAndStore(key, id, size, decode, share);
  }

  private async decodeAndStore(key: { thread: string; ns: string; channel: string }, id: string, size: number,
    decode: (snapshot?: SnapshotReviver) => unknown, share: boolean): Promise<unknown> {
    const value = await decode((text, reviveItem) => this.items.revive(key, text, reviveItem));
    const plan = planCopy(value);
    if (plan === undefined) return value;
    // The decoded tree stays private to the cache; this reader gets a copy like every later one.
    this.store(id, { value, bytes: size, plan });
    return share ? value : freshCopy(value, plan);
  }

  /** Forgets every value of a thread (after it was deleted, pruned or overwritten by a copy). */
  forgetThread(thread: string): void {
    this.items.forgetThread(thread);
    const prefix = `${thread}\u0000`;
    for (const [id, entry] of this.entries) {
      if (!id.startsWith(prefix)) continue;
      this.entries.delete(id);
      this.bytes -= entry.bytes;
    }
  }

  private store(id: string, entry: Entry): void {
    // Two overlapping misses of one value both store it: the first entry's bytes must go before the second's count.
    const previous = this.entries.get(id);
    if (previous !== undefined) {
      this.entries.delete(id);
      this.bytes -= previous.bytes;
    }
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
