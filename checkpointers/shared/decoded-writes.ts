/**
 * A per-process cache of decoded pending writes for delta-channel histories, keyed by what was stored (type and
 * bytes): every read of a thread replays the writes since the last snapshot of its messages (up to a hundred, a
 * message each), and reviving a LangChain message costs ~100 µs where a copy of the decoded one costs a few. The
 * same bytes always decode to the same value, so an entry never goes stale: nothing to forget when a thread is
 * deleted, pruned or copied. Readers get copies ({@link freshCopy}) unless the caller shares (a read-only view).
 * @module
 */
import { CopiedCache, MISS } from "./copied-cache.js";

/** Smaller values are plain JSON parsed fast enough (a message written is several hundred bytes). */
const MIN_BYTES = 128;
/** Larger ones are rare for a write, and would make the content key costly. */
const MAX_VALUE_BYTES = 256 * 1024;
/** Entries kept (least recently used first out) and the stored bytes they may hold together. */
const MAX_ENTRIES = 4096;
const MAX_BYTES = 16 * 1024 * 1024;

/** Decoded writes by their stored type and bytes, handed out as copies. */
export class DecodedWrites {
  private readonly entries = new CopiedCache(MAX_ENTRIES, MAX_BYTES);

  /**
   * The value of a write stored as (`type`, `stored`): from the cache, or `decode()`'s (cached when its size is in
   * range and its tree can be copied). With `share`, a cached value is the cache's own (for a read-only view).
   */
  load(type: string, stored: Uint8Array | string | null, decode: () => unknown, share = false): unknown {
    const size = stored === null ? 0 : typeof stored === "string" ? stored.length : stored.byteLength;
    if (stored === null || size < MIN_BYTES || size > MAX_VALUE_BYTES) return decode();
    // Bytes as latin1 text: one character per byte, so two keys are equal exactly when the bytes are.
    const key = `${typeof stored === "string" ? "s" : "b"}${type}\u0000${typeof stored === "string" ? stored : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString("latin1")}`;
    const kept = this.entries.read(key, share);
    if (kept !== MISS) return kept;
    return this.decodeAndStore(key, size, decode, share);
  }

  /** Forgets every write kept (the saver closed). */
  clear(): void {
    this.entries.clear();
  }

  private async decodeAndStore(key: string, size: number, decode: () => unknown, share: boolean): Promise<unknown> {
    const value = await decode();
    // The decoded tree is the cache's now: this reader gets a copy like every later one.
    return this.entries.keep(key, value, size, share);
  }
}
