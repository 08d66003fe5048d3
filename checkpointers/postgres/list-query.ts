import { tupleSql } from "./statements.js";

/** What `list()` selects on, already pulled out of the config and options. */
export interface PgListSelection {
  threadId?: string;
  checkpointNs?: string;
  checkpointId?: string;
  before?: string;
  filter?: Record<string, unknown>;
}

/** Where the previous page stopped (rows are ordered by id, thread, namespace, all descending). */
export interface PgListCursor {
  checkpointId: string;
  threadId: string;
  checkpointNs: string;
}

/**
 * One page of `list()` as a single statement: selection, metadata filters and keyset cursor in SQL, values and
 * writes aggregated per row (see `tupleSql`). Metadata filters are strict equality per key, like MemorySaver's
 * `===`: `metadata -> key = value::jsonb` (a string never equals a number), `undefined` = the key is absent.
 */
export function listPage(selection: PgListSelection, cursor: PgListCursor | undefined, limit: number): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (selection.threadId !== undefined) where.push(`thread_id = ${param(selection.threadId)}`);
  if (selection.checkpointNs !== undefined) where.push(`checkpoint_ns = ${param(selection.checkpointNs)}`);
  if (selection.checkpointId !== undefined) where.push(`checkpoint_id = ${param(selection.checkpointId)}`);
  if (selection.before !== undefined) where.push(`checkpoint_id < ${param(selection.before)}`);
  for (const [key, value] of Object.entries(selection.filter ?? {})) {
    if (value === undefined) where.push(`metadata IS NOT NULL AND NOT (metadata ? ${param(key)})`);
    else where.push(`metadata -> ${param(key)} = ${param(typeof value === "bigint" ? String(value) : JSON.stringify(value))}::jsonb`);
  }
  if (cursor !== undefined) {
    where.push(`(checkpoint_id, thread_id, checkpoint_ns) < (${param(cursor.checkpointId)}, ${param(cursor.threadId)}, ${param(cursor.checkpointNs)})`);
  }
  const selectRows = `SELECT * FROM checkpoints ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
    ORDER BY checkpoint_id DESC, thread_id DESC, checkpoint_ns DESC LIMIT ${param(limit)}`;
  return { text: tupleSql(selectRows), values };
}
