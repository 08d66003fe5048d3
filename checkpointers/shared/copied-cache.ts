/**
 * The store behind the decoded caches (decoded-values.ts, decoded-writes.ts): decoded trees kept private, least
 * recently used first out within an entry count and a stored-bytes budget, each reader handed its own deep copy
 * ({@link freshCopy}) unless it shares (a read-only view's reader, which changes nothing it reads).
 *
 * A large tree read again and again (a long thread's message history: ~4,000 messages, ~47,000 objects, ~5 ms a
 * copy, on every getState and every run's start) gets its next reader's copy made ahead, on a zero timer after a
 * read: that reader then takes it without waiting for the copy (the copies made are the same in number, one more at
 * most per entry; they move off the read's path). A prepared copy is nobody's until it is handed out, and counts in
 * the byte budget like its entry (pushing the least recently used entries out).
 * @module
 */
import { CHANGED, copyOrForget, freshCopy, planCopy, type CopyPlan } from "./fresh-copy.js";

/** What {@link CopiedCache.read} returns when the key is not kept (or its tree was changed by a shared reader). */
export const MISS: unique symbol = Symbol("miss");

/** Trees with fewer objects than this are copied when read: a copy ahead would cost more than it saves. */
const MIN_PREPARED_OBJECTS = 4096;

interface Entry {
  value: unknown;
  plan: CopyPlan;
  bytes: number;
  /** Copies handed out: a copy is prepared ahead only from the second on (a tree read once may never be again). */
  reads: number;
  /** The next reader's copy, made ahead; `prepared` says whether there is one. */
  next: unknown;
  prepared: boolean;
  /** A copy ahead is scheduled. */
  preparing: boolean;
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
    hit.reads++;
    if (hit.prepared) {
      const next = hit.next;
      hit.next = undefined;
      hit.prepared = false;
      this.bytes -= hit.bytes;
      this.prepareNext(key, hit);
      return next;
    }
    const copy = copyOrForget(hit.value, hit.plan);
    // A shared reader changed the kept tree (see CachedValueChangedError): the caller decodes again and keeps that.
    if (copy === CHANGED) return MISS;
    this.prepareNext(key, hit);
    return copy;
  }

  /** Schedules the copy of `entry`'s tree its next reader will take, when it is large and read more than once. */
  private prepareNext(key: string, entry: Entry): void {
    // A tree over half the budget never fits beside its own copy: making room would only empty the cache.
    if (entry.preparing || entry.reads < 2 || entry.plan.slots.length < MIN_PREPARED_OBJECTS || 2 * entry.bytes > this.maxBytes) return;
    entry.preparing = true;
    // A timer, not an immediate: a run goes on from LangGraph's store poller (a zero timer), which the loop runs
    // before it reaches the check phase again, so an immediate scheduled during a check phase came after the next
    // read (240 of 317 reads of a 1,000-turn history copied inline). Zero timers run in the order they were set.
    setTimeout(() => {
      entry.preparing = false;
      // Gone (forgotten, aged out, replaced) or already prepared; else room is made as for a new entry.
      if (this.entries.get(key) !== entry || entry.prepared || !this.makeRoom(key, entry.bytes)) return;
      let copy: unknown = CHANGED;
      try {
        copy = copyOrForget(entry.value, entry.plan);
      } catch {
        // Nobody waits for this copy to report to: the entry goes, and its next reader decodes the value again.
      }
      if (copy === CHANGED) {
        this.drop(key, entry);
        return;
      }
      entry.next = copy;
      entry.prepared = true;
      this.bytes += entry.bytes;
    }).unref();
  }

  /**
   * Keeps a freshly decoded `value` (stored in `bytes`) when its tree can be copied, and returns what its reader
   * gets: a copy like every later reader, or the value itself with `share` (or when it is not kept). `planned`: the
   * value's plan when the caller has it (a snapshot joined from its items' plans).
   */
  keep(key: string, value: unknown, bytes: number, share: boolean, planned?: CopyPlan): unknown {
    const plan = planned ?? planCopy(value);
    if (plan === undefined) return value;
    // A sharing reader takes no copy: only copies handed out count as reads (a run's shared check then its read is one).
    this.store(key, { value, plan, bytes, reads: share ? 0 : 1, next: undefined, prepared: false, preparing: false });
    return share ? value : freshCopy(value, plan);
  }

  /** Forgets every key and its prepared copy (a copy still scheduled then finds its entry gone and makes none). */
  clear(): void {
    this.forgetPrefix("");
  }

  /** Forgets every key that starts with `prefix`. */
  forgetPrefix(prefix: string): void {
    for (const [key, entry] of this.entries) if (key.startsWith(prefix)) this.drop(key, entry);
  }

  /**
   * Pushes the least recently used entries other than `key`'s out until `bytes` more fit in the budget (a thread's
   * older history snapshots, read no more, would otherwise fill it and leave no room), and with `newEntry` until one
   * more entry fits in the count too; whether the bytes fit.
   */
  private makeRoom(key: string, bytes: number, newEntry = false): boolean {
    for (const [oldest, old] of this.entries) {
      if ((!newEntry || this.entries.size < this.maxEntries) && this.bytes + bytes <= this.maxBytes) break;
      if (oldest !== key) this.drop(oldest, old);
    }
    return this.bytes + bytes <= this.maxBytes;
  }

  /** Forgets `entry` (under `key`) and its prepared copy. */
  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.prepared ? 2 * entry.bytes : entry.bytes;
    entry.next = undefined;
    entry.prepared = false;
  }

  private store(key: string, entry: Entry): void {
    // Two overlapping misses of one value both store it: the first entry's bytes must go before the second's count.
    const previous = this.entries.get(key);
    if (previous !== undefined) this.drop(key, previous);
    if (entry.bytes > this.maxBytes) return;
    // `key` is no longer kept (dropped above): nothing is spared.
    this.makeRoom(key, entry.bytes, true);
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
  }
}
