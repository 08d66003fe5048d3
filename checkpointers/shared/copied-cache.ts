/**
 * The store behind the decoded caches (decoded-values.ts, decoded-writes.ts): decoded trees kept private, least
 * recently used first out within an entry count and a stored-bytes budget, each reader handed its own deep copy
 * ({@link freshCopy}) unless it shares (a read-only view's reader, which changes nothing it reads).
 * @module
 */
import { CHANGED, copyOrForget, freshCopy, planCopy, type CopyPlan } from "./fresh-copy.js";

/** What {@link CopiedCache.read} returns when the key is not kept (or its tree was changed by a shared reader). */
export const MISS: unique symbol = Symbol("miss");

interface Entry {
  value: unknown;
  plan: CopyPlan;
  bytes: number;
}

/** Decoded trees by key, handed out as copies. */
export class CopiedCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  /** `maxEntries` and `maxBytes` (stored bytes, as the callers count them) bound what is kept together. */
  constructor(private readonly maxEntries: number, private readonly maxBytes: number) {}

  /** The kept value of `key` (its copy, or itself with `share`), or {@link MISS}. */
  read(key: string, share: boolean): unknown {
    const hit = this.entries.get(key);
    if (hit === undefined) return MISS;
    // Re-inserted: the Map's order is the recency order.
    this.entries.delete(key);
    this.entries.set(key, hit);
    if (share) return hit.value;
    const copy = copyOrForget(hit.value, hit.plan);
    // A shared reader changed the kept tree (see CachedValueChangedError): the caller decodes again and keeps that.
    return copy === CHANGED ? MISS : copy;
  }

  /**
   * Keeps a freshly decoded `value` (stored in `bytes`) when its tree can be copied, and returns what its reader
   * gets: a copy like every later reader, or the value itself with `share` (or when it is not kept).
   */
  keep(key: string, value: unknown, bytes: number, share: boolean): unknown {
    const plan = planCopy(value);
    if (plan === undefined) return value;
    this.store(key, { value, plan, bytes });
    return share ? value : freshCopy(value, plan);
  }

  /** Forgets every key that starts with `prefix`. */
  forgetPrefix(prefix: string): void {
    for (const [key, entry] of this.entries) {
      if (!key.startsWith(prefix)) continue;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }

  private store(key: string, entry: Entry): void {
    // Two overlapping misses of one value both store it: the first entry's bytes must go before the second's count.
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    if (entry.bytes > this.maxBytes) return;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size < this.maxEntries && this.bytes + entry.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
  }
}
