/**
 * A whole checkpoint tuple in one statement (the row, its value rows, the `vals` of other checkpoints holding its
 * inline values, its writes), with the inline values (schema v3) cut out of their holders' `vals` in JS: SQLite's `->`
 * parses a holder's whole array and renders the element again, per value.
 * @module
 */
import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { PartRow, TupleKey } from "./statements.js";
import { inlineOf, type Refs } from "./value-refs.js";
import { valsElements } from "./vals-text.js";

/** A statement's row: a {@link PartRow}, the head carrying refs (k1) and vals (k2), or part 3 a holder's vals (a = its id). */
type RawRow = Omit<PartRow, "part"> & { part: 0 | 1 | 2 | 3 };

/**
 * Value rows (part 1, b = version), other holders' vals (part 3) and writes (part 2) of the checkpoint `target`
 * names. No ORDER BY: a sort would copy every value into a sorter; the few writes are put in order in JS instead.
 */
const PARTS = `
  SELECT t.id AS cid, 1 AS part, r.key AS a, r.value ->> 1 AS b, NULL AS skeleton, b.type AS type, b.value AS value,
         NULL AS k1, NULL AS k2, NULL AS k3
    FROM target t CROSS JOIN checkpoints c CROSS JOIN json_each(c.refs) r CROSS JOIN checkpoint_blobs b
   WHERE c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = t.id AND r.value ->> 2 IS NULL AND b.id = r.value ->> 0
  UNION ALL
  SELECT t.id, 3, h.checkpoint_id, NULL, NULL, '', h.vals, NULL, NULL, NULL
    FROM target t CROSS JOIN checkpoints c CROSS JOIN checkpoints h
   WHERE c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = t.id
     AND h.thread_id = :thread AND h.checkpoint_ns = :ns
     AND h.checkpoint_id IN (SELECT r.value ->> 0 FROM json_each(c.refs) r WHERE r.value ->> 2 IS NOT NULL AND r.value ->> 0 <> '')
  UNION ALL
  SELECT t.id, 2, w.task_id, w.channel, NULL, w.type, w.value, w.task_path, w.task_id, w.idx
    FROM target t CROSS JOIN checkpoint_writes w
   WHERE w.thread_id = :thread AND w.checkpoint_ns = :ns AND w.checkpoint_id = t.id`;

function tupleSql(target: string): string {
  return `WITH target(id) AS (${target})
    SELECT t.id AS cid, 0 AS part, c.checkpoint_id AS a, c.parent_checkpoint_id AS b, c.checkpoint AS skeleton,
           c.metadata_type AS type, c.metadata AS value, c.refs AS k1, c.vals AS k2, NULL AS k3
      FROM target t CROSS JOIN checkpoints c
     WHERE c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = t.id
    UNION ALL ${PARTS}`;
}

/** One tuple read: every {@link PartRow} of the checkpoint, inline values as part 1 rows of type json. */
export interface TupleRead {
  all(key: TupleKey): PartRow[];
}

/** The tuple read of the checkpoint `target` (SQL giving its id from :thread, :ns and maybe :id). */
export function prepareTupleRead(db: SqliteDatabase, target: string): TupleRead {
  const statement: Statement<[TupleKey], RawRow> = db.prepare(tupleSql(target));
  return { all: (key) => withInlineValues(statement.all(key)) };
}

/** The rows with each inline value the head's refs name added as a part 1 row, and the holders' rows taken out. */
function withInlineValues(raw: RawRow[]): PartRow[] {
  const head = raw.find((row) => row.part === 0);
  const refsText = head?.k1;
  const holderRows = raw.filter((row) => row.part === 3);
  // No vals of its own and no other holder: the checkpoint names no inline value (a v2 row, or values too large).
  if (head === undefined || typeof refsText !== "string" || (head.k2 === null && holderRows.length === 0)) return clean(raw, head);
  const holders = new Map<string, string[]>();
  holders.set(head.a, valsElements(typeof head.k2 === "string" ? head.k2 : null));
  for (const row of holderRows) holders.set(row.a, valsElements(typeof row.value === "string" ? row.value : null));
  const rows = clean(raw, head);
  for (const [channel, ref] of Object.entries(JSON.parse(refsText) as Refs)) {
    const inline = inlineOf(ref, head.a);
    const value = inline === undefined ? undefined : holders.get(inline.holder)?.[inline.index];
    if (value === undefined) continue;
    rows.push({ cid: head.cid, part: 1, a: channel, b: ref[1] as string, skeleton: null, type: "json", value });
  }
  return rows;
}

/** The rows without the holders' vals, the head without refs and vals. */
function clean(raw: RawRow[], head: RawRow | undefined): PartRow[] {
  if (head !== undefined) {
    head.k1 = null;
    head.k2 = null;
  }
  return raw.filter((row): row is PartRow => row.part !== 3);
}
