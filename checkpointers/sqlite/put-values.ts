/**
 * The changed channel values of a put, serialized: small plain JSON as text to keep inline in the checkpoint row
 * (schema v3, see schema.ts), anything else as a value row's type and bytes.
 * @module
 */
import type { ChannelVersions, Checkpoint } from "@langchain/langgraph-checkpoint";
import type { Codec } from "../shared/codec.js";
import type { PutValue } from "./writes.js";

/**
 * A changed value whose JSON is at most this long is kept in the checkpoint row itself, not a value row of its own:
 * a put then writes one table leaf less. Together a row's inline values stay under ROW_INLINE_CHARS, so the row keeps
 * within one 4 KB page.
 */
export const INLINE_MAX_CHARS = 2048;
const ROW_INLINE_CHARS = 3072;

type Entry = [channel: string, version: string | number];

/**
 * The values of the channels in `newVersions` that `checkpoint` holds, in `newVersions` order. No promise unless the
 * serde must run: an await costs a microtask turn, and puts arriving in one turn share a commit (commit-batch.ts).
 */
export function putValues(codec: Codec, checkpoint: Checkpoint, newVersions: ChannelVersions | undefined): PutValue[] | Promise<PutValue[]> {
  const entries = Object.entries(newVersions ?? {}) as Entry[];
  const stored: PutValue[] = [];
  const budget = { chars: ROW_INLINE_CHARS };
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry === undefined || !holds(checkpoint, entry[0])) continue;
    const dumped = codec.dumpInlineNow(checkpoint.channel_values[entry[0]], Math.min(INLINE_MAX_CHARS, budget.chars));
    if (dumped === undefined) return withSerde(codec, checkpoint, entries.slice(i), stored, budget);
    if (typeof dumped === "string") budget.chars -= dumped.length;
    stored.push([entry[0], entry[1], dumped]);
  }
  return stored;
}

/** The rest of {@link putValues} from the first value the serde must write. */
async function withSerde(codec: Codec, checkpoint: Checkpoint, entries: Entry[], stored: PutValue[], budget: { chars: number }): Promise<PutValue[]> {
  for (const [channel, version] of entries) {
    if (!holds(checkpoint, channel)) continue;
    const value = checkpoint.channel_values[channel];
    const dumped = codec.dumpInlineNow(value, Math.min(INLINE_MAX_CHARS, budget.chars)) ?? (await codec.dump(value));
    if (typeof dumped === "string") budget.chars -= dumped.length;
    stored.push([channel, version, dumped]);
  }
  return stored;
}

/**
 * Whether the channel has a value to store: one absent from channel_values (an empty channel, a DeltaChannel between
 * snapshots) stores nothing, nor one absent from channel_versions (no ref would name it: a row nothing reaches or deletes).
 */
function holds(checkpoint: Checkpoint, channel: string): boolean {
  const values = checkpoint.channel_values;
  return values !== undefined && Object.prototype.hasOwnProperty.call(values, channel) && Object.prototype.hasOwnProperty.call(checkpoint.channel_versions, channel);
}
