import type { Statement } from "better-sqlite3";
import type { DeltaChannelHistory } from "@langchain/langgraph-checkpoint";
import { foldDeltaHistory, type DeltaHistoryRow } from "../shared/delta-history-rows.js";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { Codec } from "../shared/codec.js";


interface SeedRow {
  channel: string;
  depth: number;
  checkpoint_id: string;
}

type Params = { thread: string; ns: string; id: string; channels: string };

/**
 * The ancestors of :id (its parent at depth 1, up to the root), each with its refs (a channel's stored value).
 * CROSS JOINs pin the join order so every step is a primary-key probe driven by the chain; left to
 * itself the planner scans the whole thread once per ancestor.
 */
const ANCESTORS = `
  chain(id, depth) AS (
    SELECT parent_checkpoint_id, 1 FROM checkpoints
     WHERE thread_id = :thread AND checkpoint_ns = :ns AND checkpoint_id = :id AND parent_checkpoint_id IS NOT NULL
    UNION ALL
    SELECT c.parent_checkpoint_id, chain.depth + 1 FROM chain
      CROSS JOIN checkpoints c ON c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = chain.id
     WHERE c.parent_checkpoint_id IS NOT NULL AND chain.depth < 1000000
  ),
  ancestors AS (
    SELECT chain.id, chain.depth, c.refs FROM chain
      CROSS JOIN checkpoints c ON c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = chain.id
  ),
  wanted(channel) AS (SELECT value FROM json_each(:channels)),
  seeds AS (
    SELECT wanted.channel AS channel, MIN(a.depth) AS depth FROM wanted CROSS JOIN ancestors a
     WHERE json_extract(a.refs, '$."' || wanted.channel || '"[0]') IS NOT NULL
     GROUP BY wanted.channel
  )`;

/**
 * `getDeltaChannelHistory` in one statement: a recursive CTE walks the parent
 * chain, finds per channel the nearest ancestor holding a stored value (the
 * seed), and returns the seed plus every on-path write up to and including
 * that ancestor, oldest first and in `writesSortKey` order within a checkpoint.
 */
export class DeltaHistoryQuery {
  private readonly history: Statement<[Params], DeltaHistoryRow>;
  private readonly seeds: Statement<[Params], SeedRow>;

  constructor(db: SqliteDatabase) {
    this.history = db.prepare(`WITH RECURSIVE ${ANCESTORS}
      SELECT 'seed' AS kind, s.channel AS channel, s.depth AS depth, NULL AS task_id, b.type AS type, b.value AS value,
             '' AS task_path, 0 AS idx
        FROM seeds s CROSS JOIN ancestors a ON a.depth = s.depth
        CROSS JOIN checkpoint_blobs b ON b.id = json_extract(a.refs, '$."' || s.channel || '"[0]')
      UNION ALL
      SELECT 'write', w.channel, a.depth, w.task_id, w.type, w.value, w.task_path, w.idx
        FROM ancestors a
        CROSS JOIN checkpoint_writes w ON w.thread_id = :thread AND w.checkpoint_ns = :ns AND w.checkpoint_id = a.id
        JOIN wanted ON wanted.channel = w.channel
        LEFT JOIN seeds s ON s.channel = w.channel
       WHERE s.depth IS NULL OR a.depth <= s.depth
      ORDER BY kind, depth DESC, task_path, task_id, idx`);
    this.seeds = db.prepare(`WITH RECURSIVE ${ANCESTORS}
      SELECT wanted.channel, s.depth, a.id AS checkpoint_id FROM wanted
        LEFT JOIN seeds s ON s.channel = wanted.channel LEFT JOIN ancestors a ON a.depth = s.depth`);
  }

  /** The history of each requested channel below checkpoint `id`. */
  async read(codec: Codec, thread: string, ns: string, id: string, channels: string[]): Promise<Record<string, DeltaChannelHistory>> {
    return foldDeltaHistory(codec, channels, this.history.all({ thread, ns, id, channels: JSON.stringify(channels) }));
  }

  /**
   * The nearest ancestor of `id` holding a value of each channel, or undefined
   * for a channel with none (its history reaches the root).
   */
  seedAncestors(thread: string, ns: string, id: string, channels: string[]): Map<string, string | undefined> {
    const rows = this.seeds.all({ thread, ns, id, channels: JSON.stringify(channels) });
    return new Map(rows.map((row) => [row.channel, row.checkpoint_id ?? undefined]));
  }
}
