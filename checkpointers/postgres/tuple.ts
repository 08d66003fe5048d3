import type { RunnableConfig } from "@langchain/core/runnables";
import {
  TASKS,
  getCheckpointId,
  maxChannelVersion,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
} from "@langchain/langgraph-checkpoint";
import type { Codec } from "../shared/codec.js";
import { readSkeleton } from "../shared/skeleton-format.js";
import { nextChannelVersion } from "../shared/versions.js";
import type { TupleRow } from "./statements.js";
import { checkpointConfig } from "../shared/checkpoint-config.js";

const EMPTY = new Uint8Array();

/** Decoded values are awaited only when the serde really returned a promise: each await costs a microtask turn. */
const isPromise = (value: unknown): value is PromiseLike<unknown> => typeof (value as { then?: unknown } | null)?.then === "function";

async function load(codec: Codec, type: string | undefined, data: Buffer | string | null | undefined): Promise<unknown> {
  const value = codec.load(type ?? "", data ?? EMPTY);
  return isPromise(value) ? await value : value;
}


/** Rebuilds a {@link CheckpointTuple} from one row of a `tupleSql` statement; `requested` is the config asked for, if any. */
export async function rowToTuple(codec: Codec, row: TupleRow, requested?: RunnableConfig): Promise<CheckpointTuple> {
  const { thread_id: thread, checkpoint_ns: ns, checkpoint_id: id } = row;
  const checkpoint = readSkeleton(row.checkpoint, id);
  const values: Record<string, unknown> = {};
  const channels = row.blob_channels ?? [];
  for (const [i, channel] of channels.entries()) values[channel] = await load(codec, row.blob_types?.[i], row.blob_values?.[i]);
  checkpoint.channel_values = values;
  const pendingWrites: CheckpointPendingWrite[] = [];
  for (const [i, task] of (row.write_tasks ?? []).entries()) {
    pendingWrites.push([task, row.write_channels?.[i] ?? "", await load(codec, row.write_types?.[i], row.write_values?.[i])]);
  }
  if (checkpoint.v < 4 && row.parent_checkpoint_id !== null) {
    // Before format v4, Sends were writes to the parent's TASKS channel; newer LangGraph expects a channel value.
    const sends: unknown[] = [];
    for (const [i, type] of (row.send_types ?? []).entries()) sends.push(await load(codec, type, row.send_values?.[i]));
    checkpoint.channel_values[TASKS] = sends;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : nextChannelVersion(undefined);
  }
  const metadata = await load(codec, row.metadata_type, row.metadata ?? row.metadata_bytes);
  const tuple: CheckpointTuple = {
    config: requested !== undefined && getCheckpointId(requested) === id ? requested : checkpointConfig(thread, ns, id),
    checkpoint,
    metadata: metadata as CheckpointMetadata,
    pendingWrites,
  };
  if (row.parent_checkpoint_id !== null) tuple.parentConfig = checkpointConfig(thread, ns, row.parent_checkpoint_id);
  return tuple;
}
