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
import type { Codec } from "./codec.js";
import type { CheckpointRow, PartRow, Statements } from "./statements.js";
import { nextChannelVersion } from "./versions.js";

const EMPTY = new Uint8Array();

/** The checkpoint row itself, whichever statement read it. */
export interface CheckpointHead {
  id: string;
  parentId: string | null;
  skeleton: string;
  metadataType: string;
  metadata: Buffer | string;
}

/** Splits the rows of a one-statement tuple read into the head and its values/writes. */
export function splitParts(rows: PartRow[]): { head: CheckpointHead; parts: PartRow[] } | undefined {
  const first = rows[0];
  if (first === undefined || first.part !== 0 || first.skeleton === null || first.value === null) return undefined;
  return { head: { id: first.a, parentId: first.b, skeleton: first.skeleton, metadataType: first.type, metadata: first.value }, parts: rows.slice(1) };
}

/** The head of a row read by `list()`. */
export function headOf(row: CheckpointRow): CheckpointHead {
  return { id: row.checkpoint_id, parentId: row.parent_checkpoint_id, skeleton: row.checkpoint, metadataType: row.metadata_type, metadata: row.metadata };
}

/** Rebuilds a full {@link CheckpointTuple} from its head and its value and write rows. */
export async function readTuple(
  statements: Statements,
  codec: Codec,
  key: { thread: string; ns: string },
  head: CheckpointHead,
  parts: PartRow[],
  requested: RunnableConfig | undefined,
): Promise<CheckpointTuple> {
  const { thread, ns } = key;
  const checkpoint = JSON.parse(head.skeleton) as Checkpoint;
  const values: Record<string, unknown> = {};
  const pendingWrites: CheckpointPendingWrite[] = [];
  for (const part of parts) {
    const value = await codec.load(part.type, part.value ?? EMPTY);
    if (part.part === 1) values[part.a] = value;
    else pendingWrites.push([part.a, part.b ?? "", value]);
  }
  checkpoint.channel_values = values;
  if (checkpoint.v < 4 && head.parentId !== null) await migratePendingSends(statements, codec, checkpoint, thread, ns, head.parentId);
  const tuple: CheckpointTuple = {
    config: requested !== undefined && getCheckpointId(requested) === head.id ? requested : checkpointConfig(thread, ns, head.id),
    checkpoint,
    metadata: (await codec.load(head.metadataType, head.metadata)) as CheckpointMetadata,
    pendingWrites,
  };
  if (head.parentId !== null) tuple.parentConfig = checkpointConfig(thread, ns, head.parentId);
  return tuple;
}

/** The canonical config of one stored checkpoint. */
export function checkpointConfig(thread: string, ns: string, id: string): RunnableConfig {
  return { configurable: { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id } };
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
