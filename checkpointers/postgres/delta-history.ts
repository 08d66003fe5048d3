import type { DeltaChannelHistory } from "@langchain/langgraph-checkpoint";
import { foldDeltaHistory, type DeltaHistoryRow } from "../shared/delta-history-rows.js";
import type { PgQueryable } from "../../src/db/postgres/index.js";
import type { Codec } from "../shared/codec.js";
import type { NamedSql } from "./statements.js";


/**
 * `getDeltaChannelHistory` in one statement ($1 thread, $2 ns, $3 checkpoint id or null for the newest,
 * $4 channels): a recursive CTE walks the parent chain, finds per channel the nearest ancestor holding a stored
 * value (the seed), and returns the seed plus every on-path write up to and including that ancestor, oldest
 * first and in `writesSortKey` order within a checkpoint. The SQLite saver's query, in PostgreSQL's dialect;
 * each key lookup is a LATERAL … LIMIT 1 subquery so it stays a primary-key probe (the SQLite query pins
 * its join order with CROSS JOIN for the same reason), never a hash join over the whole table.
 */
const HISTORY: NamedSql = {
  name: "agentrt_checkpoints_delta_history_v1",
  text: `WITH RECURSIVE target(id) AS (
      SELECT COALESCE($3::text, (SELECT checkpoint_id FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2
                                  ORDER BY checkpoint_id DESC LIMIT 1))
    ),
    chain(id, depth) AS (
      SELECT c.parent_checkpoint_id, 1 FROM target t
        JOIN checkpoints c ON c.thread_id = $1 AND c.checkpoint_ns = $2 AND c.checkpoint_id = t.id
       WHERE c.parent_checkpoint_id IS NOT NULL
      UNION ALL
      SELECT c.parent_checkpoint_id, chain.depth + 1 FROM chain
        CROSS JOIN LATERAL (SELECT parent_checkpoint_id FROM checkpoints
                             WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = chain.id LIMIT 1) c
       WHERE c.parent_checkpoint_id IS NOT NULL AND chain.depth < 1000000
    ),
    ancestors AS (
      SELECT chain.id, chain.depth, c.versions FROM chain
        CROSS JOIN LATERAL (SELECT checkpoint -> 'channel_versions' AS versions FROM checkpoints
                             WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = chain.id LIMIT 1) c
    ),
    wanted(channel) AS (SELECT unnest($4::text[])),
    seeds AS (
      SELECT wanted.channel AS channel, MIN(a.depth) AS depth FROM wanted CROSS JOIN ancestors a
        CROSS JOIN LATERAL (SELECT 1 FROM checkpoint_blobs b WHERE b.thread_id = $1 AND b.checkpoint_ns = $2
                             AND b.channel = wanted.channel AND b.version = a.versions ->> wanted.channel LIMIT 1) hit
       GROUP BY wanted.channel
    )
    SELECT 'seed' AS kind, s.channel AS channel, s.depth AS depth, NULL::text AS task_id, b.type AS type, b.value AS value,
           '' AS task_path, 0 AS idx
      FROM seeds s JOIN ancestors a ON a.depth = s.depth
      CROSS JOIN LATERAL (SELECT type, value FROM checkpoint_blobs WHERE thread_id = $1 AND checkpoint_ns = $2
                           AND channel = s.channel AND version = a.versions ->> s.channel LIMIT 1) b
    UNION ALL
    SELECT 'write', w.channel, a.depth, w.task_id, w.type, w.value, w.task_path, w.idx
      FROM ancestors a
      JOIN checkpoint_writes w ON w.thread_id = $1 AND w.checkpoint_ns = $2 AND w.checkpoint_id = a.id
      JOIN wanted ON wanted.channel = w.channel
      LEFT JOIN seeds s ON s.channel = w.channel
     WHERE s.depth IS NULL OR a.depth <= s.depth
    ORDER BY kind, depth DESC, task_path, task_id, idx`,
};

/** The history of each requested channel below checkpoint `id` (the thread's newest when undefined). */
export async function readDeltaHistory(
  db: PgQueryable,
  codec: Codec,
  key: { thread: string; ns: string; id: string | undefined },
  channels: string[],
): Promise<Record<string, DeltaChannelHistory>> {
  const { rows } = await db.query<DeltaHistoryRow>(HISTORY, [key.thread, key.ns, key.id ?? null, channels]);
  return foldDeltaHistory(codec, channels, rows);
}
