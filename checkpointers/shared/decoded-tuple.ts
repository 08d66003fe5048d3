/**
 * A decoded checkpoint tuple kept by a read cache and handed out as copies: a cached read then costs a copy of the
 * tree, about a quarter of parsing its JSON again (and far less than reviving messages), and no reader shares an
 * object with the cache or with another reader.
 * @module
 */
import { getCheckpointId, type Checkpoint, type CheckpointMetadata, type CheckpointPendingWrite, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { checkpointConfig } from "./checkpoint-config.js";
import { freshCopy, planCopy, type CopyPlan } from "./fresh-copy.js";

/** A tuple's parts, each with the copy it needs; private to the cache that holds it. */
export interface DecodedTuple {
  thread: string;
  ns: string;
  id: string;
  parentId: string | undefined;
  /** The checkpoint without its channel values. */
  skeleton: Omit<Checkpoint, "channel_values">;
  skeletonPlan: CopyPlan;
  values: [channel: string, value: unknown, plan: CopyPlan][];
  metadata: unknown;
  metadataPlan: CopyPlan;
  writes: [taskId: string, channel: string, value: unknown, plan: CopyPlan][];
}

/**
 * Takes `tuple` of thread `key` (which the caller must not hand out afterwards) into a {@link DecodedTuple}; undefined when a part
 * cannot be copied faithfully (a Date, a Map, a typed array, a class instance other than a message).
 */
export function keepDecoded(tuple: CheckpointTuple, key: { thread: string; ns: string }): DecodedTuple | undefined {
  const { channel_values: channelValues, ...skeleton } = tuple.checkpoint;
  const skeletonPlan = planCopy(skeleton);
  const metadataPlan = planCopy(tuple.metadata);
  if (skeletonPlan === undefined || metadataPlan === undefined) return undefined;
  const values: DecodedTuple["values"] = [];
  for (const channel of Object.keys(channelValues)) {
    const value = channelValues[channel];
    const plan = planCopy(value);
    if (plan === undefined || channel === "__proto__") return undefined;
    values.push([channel, value, plan]);
  }
  const writes: DecodedTuple["writes"] = [];
  for (const [taskId, channel, value] of tuple.pendingWrites ?? []) {
    const plan = planCopy(value);
    if (plan === undefined) return undefined;
    writes.push([taskId, channel, value, plan]);
  }
  return {
    thread: key.thread,
    ns: key.ns,
    id: tuple.checkpoint.id,
    parentId: tuple.parentConfig?.configurable?.checkpoint_id as string | undefined,
    skeleton,
    skeletonPlan,
    values,
    metadata: tuple.metadata,
    metadataPlan,
    writes,
  };
}

/**
 * A reader's own copy of a kept tuple; its config is `requested` when that names this checkpoint, as a read gives.
 * The values of `shared` channels are the kept ones, uncopied (a read-only view's reader changes nothing it reads).
 */
export function copyTuple(decoded: DecodedTuple, requested: RunnableConfig | undefined, shared?: ReadonlySet<string>): CheckpointTuple {
  const { thread, ns, id, parentId } = decoded;
  const checkpoint = freshCopy(decoded.skeleton, decoded.skeletonPlan) as Checkpoint;
  const values: Record<string, unknown> = {};
  for (const [channel, value, plan] of decoded.values) values[channel] = shared?.has(channel) === true ? value : freshCopy(value, plan);
  checkpoint.channel_values = values;
  const pendingWrites: CheckpointPendingWrite[] = [];
  for (const [taskId, channel, value, plan] of decoded.writes) pendingWrites.push([taskId, channel, freshCopy(value, plan)]);
  const tuple: CheckpointTuple = {
    config: requested !== undefined && getCheckpointId(requested) === id ? requested : checkpointConfig(thread, ns, id),
    checkpoint,
    metadata: freshCopy(decoded.metadata, decoded.metadataPlan) as CheckpointMetadata,
    pendingWrites,
  };
  if (parentId !== undefined) tuple.parentConfig = checkpointConfig(thread, ns, parentId);
  return tuple;
}
