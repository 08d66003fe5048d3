import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { ListCursor, ListQueries, ListSelection } from "./list-query.js";
import type { BlobRow, CheckpointRow, PartRow, Statements } from "./statements.js";
import { parseSkeleton } from "../shared/skeleton-format.js";
import { sortWrites } from "./tuple.js";
import { inlineOf, valueRowOf, type Refs } from "./value-refs.js";
import { valsElements } from "./vals-text.js";

/** One `list()` page: each row's parsed skeleton, and its values and writes in `readTuple` order. */
export interface PageParts {
  parsed: Checkpoint[];
  parts: PartRow[][];
}

/** Reads one `list()` page of rows with its parts. */
export type PageReader = (selection: ListSelection, cursor: ListCursor | undefined, limit: number) => { rows: CheckpointRow[] } & PageParts;

/**
 * A page and its parts read in one read transaction (one snapshot): an older holder's `vals` come from a second
 * statement, and a prune or re-put committed by another connection between the two would move or renumber them.
 */
export function pageReader(db: SqliteDatabase, lists: ListQueries, statements: Statements): PageReader {
  const read = db.transaction((selection: ListSelection, cursor: ListCursor | undefined, limit: number) => {
    const rows = lists.page(selection, cursor, limit);
    return { rows, ...readPageParts(statements, rows) };
  });
  return (selection, cursor, limit) => read.deferred(selection, cursor, limit);
}

/**
 * Values and writes of a page of checkpoint rows in up to three statements per
 * (thread, namespace): the distinct value rows the page's refs name, each read
 * once however many checkpoints share it (an unchanged channel is shared by
 * every checkpoint since it changed), the `vals` of inline values' holders older
 * than the page (schema v3; the page's own rows hold the rest), then the page's writes.
 */
export function readPageParts(statements: Statements, rows: CheckpointRow[]): PageParts {
  const parsed = rows.map((row) => parseSkeleton(row.checkpoint, row.checkpoint_id));
  const refs = rows.map((row) => (row.refs === null ? {} : (JSON.parse(row.refs) as Refs)));
  const parts: PartRow[][] = rows.map(() => []);
  const groups = new Map<string, number[]>();
  rows.forEach((row, index) => {
    const group = JSON.stringify([row.thread_id, row.checkpoint_ns]);
    const members = groups.get(group);
    if (members === undefined) groups.set(group, [index]);
    else members.push(index);
  });
  for (const members of groups.values()) {
    const first = rows[members[0] ?? 0];
    if (first === undefined) continue;
    const key = { thread: first.thread_id, ns: first.checkpoint_ns };
    const wanted = new Set<number>();
    /** Inline values' holders by id, each one's vals split once: the page's own rows, then older ones read here. */
    const holderVals = new Map<string, string | null>();
    for (const index of members) {
      const row = rows[index];
      if (row !== undefined) holderVals.set(row.checkpoint_id, row.vals);
    }
    const missing = new Set<string>();
    for (const index of members) {
      const rowId = rows[index]?.checkpoint_id ?? "";
      for (const ref of Object.values(refs[index] ?? {})) {
        const inline = inlineOf(ref, rowId);
        const id = valueRowOf(ref);
        if (inline !== undefined && !holderVals.has(inline.holder)) missing.add(inline.holder);
        else if (id !== null) wanted.add(id);
      }
    }
    const blobs = new Map<number, BlobRow>();
    if (wanted.size > 0) for (const blob of statements.blobsByIds.all({ ...key, ids: JSON.stringify([...wanted]) })) blobs.set(blob.id, blob);
    if (missing.size > 0) for (const holder of statements.valsByIds.all({ ...key, ids: JSON.stringify([...missing]) })) holderVals.set(holder.id, holder.vals);
    const split = new Map<string, string[]>();
    const inlineValue = (holder: string, index: number): string | undefined => {
      let elements = split.get(holder);
      if (elements === undefined) {
        elements = valsElements(holderVals.get(holder) ?? null);
        split.set(holder, elements);
      }
      return elements[index];
    };
    const writesOf = new Map<string, PartRow[]>();
    for (const write of statements.writesOfIds.all({ ...key, ids: JSON.stringify(members.map((index) => rows[index]?.checkpoint_id)) })) {
      const list = writesOf.get(write.cid);
      if (list === undefined) writesOf.set(write.cid, [write]);
      else list.push(write);
    }
    for (const index of members) {
      const row = rows[index];
      const list = parts[index];
      if (row === undefined || list === undefined) continue;
      for (const [channel, ref] of Object.entries(refs[index] ?? {})) {
        const version = typeof ref[1] === "string" ? ref[1] : null;
        const inline = inlineOf(ref, row.checkpoint_id);
        if (inline !== undefined) {
          const value = inlineValue(inline.holder, inline.index);
          if (value !== undefined) list.push({ cid: row.checkpoint_id, part: 1, a: channel, b: version, skeleton: null, type: "json", value });
          continue;
        }
        const id = valueRowOf(ref);
        const blob = id === null ? undefined : blobs.get(id);
        if (blob !== undefined) list.push({ cid: row.checkpoint_id, part: 1, a: channel, b: version, skeleton: null, type: blob.type, value: blob.value });
      }
      const writes = writesOf.get(row.checkpoint_id);
      if (writes !== undefined) list.push(...sortWrites(writes));
    }
  }
  return { parsed, parts };
}
