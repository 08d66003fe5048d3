/**
 * A long thread's message history is stored as a DeltaSnapshot of every message, and every ~100 updates the saver
 * writes a new one: the first read of each new snapshot revived all of them again (~100 µs a message, 0.5–1 s on a
 * 1,000-turn thread) though all but the last few were in the previous snapshot. {@link SnapshotItems} keeps, per
 * channel, the items of the last snapshot it revived by their JSON text, so the next snapshot revives only new text.
 * The default serde revives a snapshot item by item (`_reviver` maps an array item by item, and an item's result
 * depends on its own JSON alone), so an item of equal JSON text revives to an equal value; each snapshot gets its
 * own copies, and what the memo keeps is never handed out. The snapshot's copy plan is joined from its items' plans
 * ({@link SnapshotItems.takePlan}) rather than made by walking the ~47,000 objects of a 4,000-message history again.
 * @module
 */
import { DeltaSnapshot } from "@langchain/langgraph-checkpoint";
import { copyWithPlan, joinPlans, planCopy, type CopyPlan } from "./fresh-copy.js";

/** Channels whose last snapshot's items are kept (least recently used first out). */
const MAX_CHANNELS = 8;
/**
 * JSON text of the items kept over every channel; the revived items cost ~3× more heap (8 channels of a
 * 4,000-message history, 12.8 MB of text, held 54 MB). A snapshot larger than this alone is not kept.
 */
const MAX_TEXT_CHARS = 8_000_000;
/**
 * A number token that parses to -0 (a value after `:`, `,` or `[`), which JSON.stringify writes as 0: an item holding
 * one would not revive from its re-stringified text as from the stored one. Such a snapshot (or one with a string that
 * merely looks like one) is revived whole.
 */
const NEGATIVE_ZERO = /[:,[]\s*-0(?:\.0+)?(?:[eE][+-]?\d+)?\s*[,}\]]/;

/** One revived item: private, with its copy plan. */
interface Item {
  value: unknown;
  plan: CopyPlan;
}

/** A stored DeltaSnapshot document as the default serde writes it. */
const isSnapshotDocument = (doc: unknown): doc is { lc: 2; type: "delta_snapshot"; value: unknown[] } =>
  typeof doc === "object" && doc !== null && !Array.isArray(doc) &&
  (doc as { lc?: unknown }).lc === 2 && (doc as { type?: unknown }).type === "delta_snapshot" &&
  Object.prototype.hasOwnProperty.call(doc, "value") && Array.isArray((doc as { value?: unknown }).value);

/** An item's depth in its snapshot (the snapshot, its array, the item): planned there, as in the whole tree. */
const ITEM_DEPTH = 2;

/** The plan of a DeltaSnapshot of no items: its objects come before the items' in a walk of a whole one. */
let emptySnapshotPlan: CopyPlan | undefined;

/** Per (thread, ns, channel): the items of the last DeltaSnapshot revived, by JSON text. */
export class SnapshotItems {
  private readonly channels = new Map<string, { items: Map<string, Item>; chars: number }>();
  private chars = 0;
  /** The copy plan of each snapshot revived here, until taken. */
  private readonly plans = new WeakMap<object, CopyPlan>();

  /** `maxChars`: the JSON text kept over every channel, at most. */
  constructor(private readonly maxChars = MAX_TEXT_CHARS) {}

  /**
   * The default serde's revival of JSON `text` when it is a DeltaSnapshot document (else undefined: the caller
   * revives it whole), reviving through `reviveItem` only the items the channel's previous snapshot did not hold.
   */
  async revive(key: { thread: string; ns: string; channel: string }, text: string, reviveItem: (itemText: string) => Promise<unknown>): Promise<unknown> {
    if (!text.includes('"delta_snapshot"') || NEGATIVE_ZERO.test(text)) return undefined;
    const doc: unknown = JSON.parse(text);
    if (!isSnapshotDocument(doc)) return undefined;
    const id = `${key.thread}\u0000${key.ns}\u0000${key.channel}`;
    const previous = this.channels.get(id)?.items;
    const next = new Map<string, Item>();
    let chars = 0;
    // Each item's plan, in order; undefined once an item cannot be copied (nor then the snapshot).
    const plans: (CopyPlan | undefined)[] = [];
    const items = await Promise.all(doc.value.map(async (item, index) => {
      const itemText = JSON.stringify(item);
      const known = previous?.get(itemText) ?? next.get(itemText);
      if (known !== undefined) {
        if (!next.has(itemText)) chars += itemText.length;
        next.set(itemText, known);
        const own = copyWithPlan(known.value, known.plan);
        plans[index] = own.plan;
        return own.copy;
      }
      const value = await reviveItem(itemText);
      const plan = planCopy(value, ITEM_DEPTH);
      if (plan === undefined) return value;
      // The revived item stays the memo's; the snapshot gets a copy, so nothing handed out reaches the memo.
      next.set(itemText, { value, plan });
      chars += itemText.length;
      const own = copyWithPlan(value, plan);
      plans[index] = own.plan;
      return own.copy;
    }));
    this.drop(id);
    if (chars <= this.maxChars) {
      this.channels.set(id, { items: next, chars });
      this.chars += chars;
    }
    for (const oldest of this.channels.keys()) {
      if (this.channels.size <= MAX_CHANNELS && this.chars <= this.maxChars) break;
      this.drop(oldest);
    }
    const snapshot = new DeltaSnapshot(items);
    // Every item its own fresh copy (none shares an object with another or with the snapshot), each with the plan
    // of that copy: the plans join.
    const parts = plans.filter((plan): plan is CopyPlan => plan !== undefined);
    emptySnapshotPlan ??= planCopy(new DeltaSnapshot([]));
    if (parts.length === items.length && emptySnapshotPlan !== undefined) this.plans.set(snapshot, joinPlans(emptySnapshotPlan, parts));
    return snapshot;
  }

  /**
   * The copy plan of `snapshot` if {@link revive} made it (what planCopy makes of it), once: the caller takes it
   * before anything can change the snapshot, and no later call finds a plan the snapshot may have outgrown.
   */
  takePlan(snapshot: unknown): CopyPlan | undefined {
    if (typeof snapshot !== "object" || snapshot === null) return undefined;
    const plan = this.plans.get(snapshot);
    this.plans.delete(snapshot);
    return plan;
  }

  /** Forgets every channel of a thread (deleted, pruned or overwritten by a copy). */
  forgetThread(thread: string): void {
    const prefix = `${thread}\u0000`;
    for (const id of this.channels.keys()) if (id.startsWith(prefix)) this.drop(id);
  }

  /** Forgets every channel's items. */
  clear(): void {
    this.channels.clear();
    this.chars = 0;
  }

  /** The JSON text kept over every channel (its items' heap is a few times more). */
  get keptChars(): number {
    return this.chars;
  }

  private drop(id: string): void {
    const kept = this.channels.get(id);
    if (kept === undefined) return;
    this.chars -= kept.chars;
    this.channels.delete(id);
  }
}
