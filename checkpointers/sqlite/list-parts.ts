import type { Checkpoint } from "@langchain/langgraph-checkpoint";
import type { BlobRow, CheckpointRow, PartRow, Statements } from "./statements.js";
import { parseSkeleton } from "../shared/skeleton-format.js";
import { sortWrites } from "./tuple.js";
import { inlineOf, valueRowOf, type Refs } from "./value-refs.js";

/** One `list()` page: each row's parsed skeleton, and its values and writes in `readTuple` order. */
export interface PageParts {
  parsed: Checkpoint[];
  parts: PartRow[][];
}

/**
 * Values and writes of a page of checkpoint rows in three statements per
 * (thread, namespace): the distinct value rows the page's refs name, each read
 * once however many checkpoints share it (an unchanged channel is shared by
 * every checkpoint since it changed), the inline values they name by holder
 * checkpoint and index (schema v3), then the page's writes.
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
    /** holder checkpoint id → indexes of its vals the page names. */
    const holders = new Map<string, Set<number>>();
    for (const index of members) {
      const rowId = rows[index]?.checkpoint_id ?? "";
      for (const ref of Object.values(refs[index] ?? {})) {
        const inline = inlineOf(ref, rowId);
        if (inline === undefined) {
          const id = valueRowOf(ref);
          if (id !== null) wanted.add(id);
          continue;
        }
        const indexes = holders.get(inline.holder);
        if (indexes === undefined) holders.set(inline.holder, new Set([inline.index]));
        else indexes.add(inline.index);
      }
    }
    const blobs = new Map<number, BlobRow>();
    if (wanted.size > 0) for (const blob of statements.blobsByIds.all({ ...key, ids: JSON.stringify([...wanted]) })) blobs.set(blob.id, blob);
    const inlineValues = new Map<string, string>();
    if (holders.size > 0) {
      const param = JSON.stringify([...holders].map(([holder, indexes]) => [holder, [...indexes]]));
      for (const found of statements.inlineByHolders.all({ ...key, holders: param })) inlineValues.set(`${found.holder} ${found.idx}`, found.value);
    }
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
          const value = inlineValues.get(`${inline.holder} ${inline.index}`);
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
