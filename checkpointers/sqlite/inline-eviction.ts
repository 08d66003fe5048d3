/**
 * Inline values (schema v3) live in their holder checkpoint's `vals`, and later checkpoints that did not change the
 * channel name them there. Before a holder row goes (prune) or its `vals` change (the same checkpoint put again),
 * the values other rows still name move to value rows, and those refs are pointed at them.
 * @module
 */
import type { SqliteDatabase } from "../../src/db/index.js";
import type { Statements } from "./statements.js";
import { SELF, parseRefs, type InlineRef, type Ref, type Refs } from "./value-refs.js";

/** Which holders are going, and whose refs to them must keep working. */
export interface Eviction {
  /** The holders whose inline values move. */
  holds: (checkpointId: string) => boolean;
  /** Only rows with an id at least this one keep their refs (prune: the kept rows); every row when undefined. */
  referrersFrom?: string;
  /** Refs not stored yet (the row about to replace a holder) that must not name a holder either; rewritten in place. */
  pending?: Refs;
}

/** Moves the inline values of `eviction`'s holders that its referrers name into value rows; returns how many moved. */
export function evictInline(db: SqliteDatabase, st: Statements, thread: string, ns: string, eviction: Eviction): number {
  const rows = db
    .prepare<[string, string, string | null, string | null], { checkpoint_id: string; refs: string }>(
      `SELECT c.checkpoint_id, c.refs FROM checkpoints c
        WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND (? IS NULL OR c.checkpoint_id >= ?)
          AND EXISTS (SELECT 1 FROM json_each(c.refs) r WHERE r.value ->> 2 IS NOT NULL AND r.value ->> 0 <> '')`,
    )
    .all(thread, ns, eviction.referrersFrom ?? null, eviction.referrersFrom ?? null);
  const valueOf = db.prepare<[number, string, string, string], string | null>(
    "SELECT vals -> CAST(? AS INTEGER) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  ).pluck();
  const update = db.prepare<[string, string, string, string]>("UPDATE checkpoints SET refs = ? WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?");
  /** `holder index` → the value row it moved to. */
  const moved = new Map<string, number | null>();
  const rowFor = (channel: string, ref: InlineRef): Ref => {
    const [holder, version, index] = ref;
    const key = `${holder} ${index}`;
    let id = moved.get(key);
    if (id === undefined) {
      // `->` takes its index as a number; a missing holder or element leaves the channel without a value, as a missing value row would.
      const text = valueOf.get(index, thread, ns, holder) ?? null;
      id = text === null ? null : Number(st.insertBlob.run(thread, ns, channel, version, "json", text).lastInsertRowid);
      moved.set(key, id);
    }
    return [id, version];
  };
  const rewrite = (refs: Refs): boolean => {
    let changed = false;
    for (const [channel, ref] of Object.entries(refs)) {
      if (ref.length !== 3 || ref[0] === SELF || !eviction.holds(ref[0])) continue;
      refs[channel] = rowFor(channel, ref);
      changed = true;
    }
    return changed;
  };
  for (const row of rows) {
    const refs = parseRefs(row.refs);
    if (rewrite(refs)) update.run(JSON.stringify(refs), thread, ns, row.checkpoint_id);
  }
  if (eviction.pending !== undefined) rewrite(eviction.pending);
  return moved.size;
}
