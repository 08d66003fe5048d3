import {
  TASKS,
  getCheckpointId,
  maxChannelVersion,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Codec } from "../shared/codec.js";
import type { DecodedValues } from "../shared/decoded-values.js";
import { parseSkeleton } from "../shared/skeleton-format.js";
import type { CheckpointRow, PartRow, Statements } from "./statements.js";
import { nextChannelVersion } from "../shared/versions.js";
import { checkpointConfig } from "../shared/checkpoint-config.js";

const EMPTY = new Uint8Array();

/** The checkpoint row itself, whichever statement read it. */
export interface CheckpointHead {
  id: string;
  parentId: string | null;
  skeleton: string;
  metadataType: string;
  metadata: Buffer | string;
  /** The skeleton already parsed (and owned by this read), when the caller needed it first. */
  parsed?: Checkpoint;
}

/**
 * Splits the rows of a one-statement tuple read into the head and its values
 * and writes, writes in `writesSortKey` order. The statement has no ORDER BY
 * (a sort would copy every value), so the head may be any row.
 */
export function splitParts(rows: PartRow[]): { head: CheckpointHead; parts: PartRow[] } | undefined {
  const head = rows.find((row) => row.part === 0);
  if (head === undefined || head.skeleton === null || head.value === null) return undefined;
  const parts = rows.filter((row) => row.part === 1);
  const writes = rows.filter((row) => row.part === 2);
  if (writes.length > 0) parts.push(...sortWrites(writes));
  return { head: { id: head.a, parentId: head.b, skeleton: head.skeleton, metadataType: head.type, metadata: head.value }, parts };
}

/** Writes in `writesSortKey` order: task path, task id, idx; strings as SQLite's BINARY collation (code points). */
export function sortWrites(writes: PartRow[]): PartRow[] {
  return writes.sort((x, y) => compareCodePoints(x.k1 ?? "", y.k1 ?? "") || compareCodePoints(x.k2 ?? "", y.k2 ?? "") || (x.k3 ?? 0) - (y.k3 ?? 0));
}

/** Code point order (UTF-8 byte order), which differs from `<` on UTF-16 only around surrogates. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    // A surrogate starts a code point above U+FFFF: above any other code unit.
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** The head of a row read by `list()`. */
export function headOf(row: CheckpointRow, parsed?: Checkpoint): CheckpointHead {
  return { id: row.checkpoint_id, parentId: row.parent_checkpoint_id, skeleton: row.checkpoint, metadataType: row.metadata_type, metadata: row.metadata, parsed };
}

/** Decoded values are awaited only when the serde really returned a promise: each await costs a microtask turn. */
const isPromise = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === "function";

/** Rebuilds a full {@link CheckpointTuple} from its head and its value and write rows. */
export async function readTuple(
  statements: Statements,
  codec: Codec,
  key: { thread: string; ns: string },
  head: CheckpointHead,
  parts: PartRow[],
  requested: RunnableConfig | undefined,
  cache?: DecodedValues,
): Promise<CheckpointTuple> {
  const { thread, ns } = key;
  const checkpoint = head.parsed ?? parseSkeleton(head.skeleton, head.id);
  const values: Record<string, unknown> = {};
  const pendingWrites: CheckpointPendingWrite[] = [];
  for (const part of parts) {
    let value =
      part.part === 1 && cache !== undefined
        ? cache.load({ thread, ns, channel: part.a, version: part.b }, part.value, (snapshot) => codec.load(part.type, part.value ?? EMPTY, snapshot))
        : codec.load(part.type, part.value ?? EMPTY);
    if (isPromise(value)) value = await value;
    if (part.part === 1) values[part.a] = value;
    else pendingWrites.push([part.a, part.b ?? "", value]);
  }
  checkpoint.channel_values = values;
  if (checkpoint.v < 4 && head.parentId !== null) await migratePendingSends(statements, codec, checkpoint, thread, ns, head.parentId);
  let metadata = codec.load(head.metadataType, head.metadata);
  if (isPromise(metadata)) metadata = await metadata;
  const tuple: CheckpointTuple = {
    config: requested !== undefined && getCheckpointId(requested) === head.id ? requested : checkpointConfig(thread, ns, head.id),
    checkpoint,
    metadata: metadata as CheckpointMetadata,
    pendingWrites,
  };
  if (head.parentId !== null) tuple.parentConfig = checkpointConfig(thread, ns, head.parentId);
  return tuple;
}


/**
 * Checkpoints before format v4 kept `Send`s as writes to the parent's TASKS
 * channel; newer LangGraph expects them as a channel value of the child.
 */
async function migratePendingSends(statements: Statements, codec: Codec, checkpoint: Checkpoint, thread: string, ns: string, parentId: string): Promise<void> {
  const sends: unknown[] = [];
  for (const send of statements.sendsOf.all(thread, ns, parentId)) {
    sends.push(await codec.load(send.type, send.value ?? EMPTY));
  }
  checkpoint.channel_values[TASKS] = sends;
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : nextChannelVersion(undefined);
}
