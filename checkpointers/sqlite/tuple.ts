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
import type { CheckpointRow, Statements } from "./statements.js";
import { nextChannelVersion } from "./versions.js";

const EMPTY = new Uint8Array();

/** Rebuilds a full {@link CheckpointTuple} from its row, its blobs and its writes. */
export async function readTuple(
  statements: Statements,
  codec: Codec,
  row: CheckpointRow,
  requested: RunnableConfig | undefined,
): Promise<CheckpointTuple> {
  const { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id, parent_checkpoint_id: parentId } = row;
  const checkpoint = JSON.parse(row.checkpoint) as Checkpoint;
  const values: Record<string, unknown> = {};
  for (const blob of statements.blobsOf.all(thread, ns, id)) {
    values[blob.channel] = await codec.load(blob.type, blob.value ?? EMPTY);
  }
  checkpoint.channel_values = values;
  const pendingWrites: CheckpointPendingWrite[] = [];
  for (const write of statements.writesOf.all(thread, ns, id)) {
    pendingWrites.push([write.task_id, write.channel, await codec.load(write.type, write.value ?? EMPTY)]);
  }
  if (checkpoint.v < 4 && parentId !== null) await migratePendingSends(statements, codec, checkpoint, row);
  const tuple: CheckpointTuple = {
    config: requested !== undefined && getCheckpointId(requested) === id ? requested : checkpointConfig(thread, ns, id),
    checkpoint,
    metadata: (await codec.load(row.metadata_type, row.metadata)) as CheckpointMetadata,
    pendingWrites,
  };
  if (parentId !== null) tuple.parentConfig = checkpointConfig(thread, ns, parentId);
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
async function migratePendingSends(statements: Statements, codec: Codec, checkpoint: Checkpoint, row: CheckpointRow): Promise<void> {
  const sends: unknown[] = [];
  for (const send of statements.sendsOf.all(row.thread_id, row.checkpoint_ns, row.parent_checkpoint_id ?? "")) {
    sends.push(await codec.load(send.type, send.value ?? EMPTY));
  }
  checkpoint.channel_values[TASKS] = sends;
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : nextChannelVersion(undefined);
}
