/**
 * The stored channel values of a SqliteSaver file, wherever they live: value rows of checkpoint_blobs, and (schema v3)
 * the inline values each checkpoint row holds in its `vals` (a ref of its own, holder ""). A value shared by several
 * checkpoints is one row here, as it is one stored value.
 */
import type { SqliteDatabase } from "../../../src/db/index.js";

/** A subquery with one row per stored value: thread_id, checkpoint_ns, channel, version, inline (0 or 1). */
export const STORED_VALUES = `(
  SELECT thread_id, checkpoint_ns, channel, version, 0 AS inline FROM checkpoint_blobs
  UNION ALL
  SELECT c.thread_id, c.checkpoint_ns, r.key, r.value ->> 1, 1 FROM checkpoints c, json_each(c.refs) r
   WHERE r.value ->> 2 IS NOT NULL AND r.value ->> 0 = '')`;

/** How many rows of `table` match `where`; "checkpoint_blobs" counts every stored value (see above). */
export function countRows(db: SqliteDatabase, table: string, where = "1"): number {
  const from = table === "checkpoint_blobs" ? STORED_VALUES : table;
  return (db.prepare(`SELECT count(*) AS n FROM ${from} WHERE ${where}`).get() as { n: number }).n;
}
