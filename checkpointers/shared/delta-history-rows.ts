import type { CheckpointPendingWrite, DeltaChannelHistory } from "@langchain/langgraph-checkpoint";
import type { Codec, SnapshotReviver } from "./codec.js";

/** One row of a delta-history query, the same on both backends: a channel's seed value, or one write after it. */
export interface DeltaHistoryRow {
  kind: "seed" | "write";
  channel: string;
  task_id: string | null;
  type: string;
  value: Buffer | null;
  /** A seed's blob version (when the query reads it): the key under which its decoded value may be cached. */
  version?: string | number | null;
}

/** Decodes a seed's (or a write's) row value; `decode` is the plain decode, for a caller that caches. */
export type SeedLoader = (row: DeltaHistoryRow, decode: (snapshot?: SnapshotReviver) => unknown) => unknown;

/** The history of each of `channels` from the query's rows (seeds first, then writes oldest first). */
export async function foldDeltaHistory(
  codec: Codec,
  channels: string[],
  rows: Iterable<DeltaHistoryRow>,
  loadSeed?: SeedLoader,
  loadWrite?: SeedLoader,
): Promise<Record<string, DeltaChannelHistory>> {
  const result: Record<string, DeltaChannelHistory> = {};
  for (const channel of channels) result[channel] = { writes: [] };
  for (const row of rows) {
    const entry = result[row.channel];
    if (entry === undefined) continue;
    const decode = (snapshot?: SnapshotReviver) => codec.load(row.type, row.value ?? new Uint8Array(), snapshot);
    const loader = row.kind === "seed" ? loadSeed : loadWrite;
    const value = await (loader !== undefined ? loader(row, decode) : decode());
    if (row.kind === "seed") entry.seed = value;
    else entry.writes.push([row.task_id ?? "", row.channel, value] satisfies CheckpointPendingWrite);
  }
  return result;
}
