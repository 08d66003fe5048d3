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
import { CopiedCache, MISS } from "./copied-cache.js";
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

/** Decoded blob values, kept private and handed out as deep copies. */
export class DecodedValues {
  private readonly entries = new CopiedCache(MAX_ENTRIES, MAX_BYTES);
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
    const kept = this.entries.read(id, share);
    if (kept !== MISS) return kept;
    return this.decodeAndStore(key, id, size, decode, share);
  }

  private async decodeAndStore(key: { thread: string; ns: string; channel: string }, id: string, size: number,
    decode: (snapshot?: SnapshotReviver) => unknown, share: boolean): Promise<unknown> {
    const value = await decode((text, reviveItem) => this.items.revive(key, text, reviveItem));
    // The decoded tree stays private to the cache; this reader gets a copy like every later one.
    // A snapshot revived item by item comes with its plan (one walk of a 4,000-message tree less).
    return this.entries.keep(id, value, size, share, this.items.takePlan(value));
  }

  /** Forgets every value and snapshot item kept (the saver closed). */
  clear(): void {
    this.items.clear();
    this.entries.clear();
  }

  /** Forgets every value of a thread (after it was deleted, pruned or overwritten by a copy). */
  forgetThread(thread: string): void {
    this.items.forgetThread(thread);
    this.entries.forgetPrefix(`${thread}\u0000`);
  }
}
