import type { SqliteDatabase } from "../../src/db/index.js";
import type { DeltaHistoryQuery } from "./delta-history.js";
import { evictInline } from "./inline-eviction.js";
import type { PruneOptions } from "./options.js";
import { refsMemoOf } from "./refs-memo.js";
import type { Statements } from "./statements.js";

/** Deletes all but the newest `keepLast` checkpoints of a thread, in one transaction; returns the count deleted. */
export function pruneThread(db: SqliteDatabase, st: Statements, deltas: DeltaHistoryQuery, options: PruneOptions): number {
  const run = db.transaction(() => {
    // Kept rows that name a pruned one's inline values get new refs (see refs-memo.ts).
    refsMemoOf(db).forgetThread(options.threadId);
    const namespaces =
      options.checkpointNs !== undefined
        ? [options.checkpointNs]
        : db.prepare<[string], string>("SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ?").pluck().all(options.threadId);
    let deleted = 0;
    for (const ns of namespaces) deleted += pruneNamespace(db, st, deltas, options.threadId, ns, options.keepLast);
    return deleted;
  });
  return run.immediate();
}

function pruneNamespace(db: SqliteDatabase, st: Statements, deltas: DeltaHistoryQuery, thread: string, ns: string, keepLast: number): number {
  const oldestKept = db
    .prepare<[string, string, number], string>(
      "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1 OFFSET ?",
    )
    .pluck()
    .get(thread, ns, keepLast - 1);
  if (oldestKept === undefined) return 0;
  const keepFrom = deltaSafeCutoff(db, deltas, thread, ns, oldestKept);
  if (keepFrom === undefined) return 0;
  db.prepare("DELETE FROM checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?").run(thread, ns, keepFrom);
  // Inline values of pruned checkpoints that kept ones still name become value rows before their holders go.
  evictInline(db, st, thread, ns, { holds: (holder) => holder < keepFrom, referrersFrom: keepFrom });
  // The values the pruned checkpoints reference, read before they go; those a kept checkpoint still references stay.
  const referenced = db
    .prepare<[string, string, string], number>(
      `SELECT DISTINCT r.value ->> 0 FROM checkpoints c, json_each(c.refs) r
        WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id < ? AND r.value ->> 0 IS NOT NULL AND r.value ->> 2 IS NULL`,
    )
    .pluck()
    .all(thread, ns, keepFrom);
  const { changes } = db
    .prepare("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?")
    .run(thread, ns, keepFrom);
  db.prepare(
    `DELETE FROM checkpoint_blobs WHERE id IN (SELECT value FROM json_each(?)) AND id NOT IN (
       SELECT r.value ->> 0 FROM checkpoints c, json_each(c.refs) r
        WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND r.value ->> 0 IS NOT NULL AND r.value ->> 2 IS NULL)`,
  ).run(JSON.stringify(referenced), thread, ns);
  return changes;
}

/**
 * A kept checkpoint whose DeltaChannel has no stored value is rebuilt from
 * ancestors (seed + writes), so those ancestors must survive: the cutoff moves
 * back to the oldest seed. Undefined when some channel has no seed at all
 * (its history starts at the root), in which case nothing can be pruned.
 */
function deltaSafeCutoff(db: SqliteDatabase, deltas: DeltaHistoryQuery, thread: string, ns: string, oldestKept: string): string | undefined {
  const channels = db
    .prepare<[string, string, string], string>(
      `SELECT DISTINCT d.key FROM checkpoints c, json_each(c.metadata, '$.counters_since_delta_snapshot') d
        WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id >= ? AND c.metadata_type = 'json'`,
    )
    .pluck()
    .all(thread, ns, oldestKept);
  if (channels.length === 0) return oldestKept;
  let cutoff = oldestKept;
  for (const seed of deltas.seedAncestors(thread, ns, oldestKept, channels).values()) {
    if (seed === undefined) return undefined;
    if (seed < cutoff) cutoff = seed;
  }
  return cutoff;
}
