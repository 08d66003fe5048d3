import type { Statement } from "better-sqlite3";
import type { DeltaChannelHistory } from "@langchain/langgraph-checkpoint";
import { foldDeltaHistory, type DeltaHistoryRow } from "../shared/delta-history-rows.js";
import type { SqliteDatabase } from "../../src/db/index.js";
import type { Codec } from "../shared/codec.js";
import type { DecodedValues } from "../shared/decoded-values.js";
import { DecodedWrites } from "../shared/decoded-writes.js";

interface SeedRow {
  channel: string;
  depth: number;
  checkpoint_id: string;
}

type Params = { thread: string; ns: string; id: string; channels: string };

/** The JSON array of the channels of JSON array `pending` that checkpoint row `c` holds no stored value of. */
const unseeded = (pending: string) => `(SELECT json_group_array(p.value) FROM json_each(${pending}) p
     WHERE json_extract(c.refs, '$."' || p.value || '"[0]') IS NULL)`;

/**
 * The ancestors of :id (its parent at depth 1), up to the nearest one holding a value of every requested channel
 * (the root when a channel has none). `before` and `after` are the channels still without a seed before and after
 * a row's own check, so the walk stops at the deepest seed instead of reading the whole thread (a 1,000-turn thread
 * has 5,000 ancestors; its seeds lie within the last few hundred), and a seed is the row that took its channel off.
 * CROSS JOINs pin the join order so every step is a primary-key probe driven by the chain; left to
 * itself the planner scans the whole thread once per ancestor.
 */
const ANCESTORS = `
  chain(id, parent, depth, before, after) AS (
    SELECT c.checkpoint_id, c.parent_checkpoint_id, 1, json(:channels), ${unseeded("json(:channels)")}
      FROM checkpoints t
      CROSS JOIN checkpoints c ON c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = t.parent_checkpoint_id
     WHERE t.thread_id = :thread AND t.checkpoint_ns = :ns AND t.checkpoint_id = :id
    UNION ALL
    SELECT c.checkpoint_id, c.parent_checkpoint_id, chain.depth + 1, chain.after, ${unseeded("chain.after")}
      FROM chain
      CROSS JOIN checkpoints c ON c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = chain.parent
     WHERE chain.after <> '[]' AND chain.depth < 1000000
  ),
  ancestors AS (SELECT id, depth FROM chain),
  wanted(channel) AS (SELECT value FROM json_each(:channels)),
  seeds AS MATERIALIZED (
    SELECT p.value AS channel, chain.depth AS depth FROM chain CROSS JOIN json_each(chain.before) p
     WHERE p.value NOT IN (SELECT value FROM json_each(chain.after))
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
  /** The writes replayed after a seed, decoded once: every read of a thread replays them again. */
  private readonly writes = new DecodedWrites();

  constructor(db: SqliteDatabase) {
    // A seed's ref names a value row, or (schema v3) an element of its holder's vals: the seed row's own ("") or another's.
    this.history = db.prepare(`WITH RECURSIVE ${ANCESTORS},
      seed_refs AS (
        SELECT s.channel AS channel, s.depth AS depth, c.vals AS vals, c.refs -> ('$."' || s.channel || '"') AS ref
          FROM seeds s CROSS JOIN ancestors a ON a.depth = s.depth
          CROSS JOIN checkpoints c ON c.thread_id = :thread AND c.checkpoint_ns = :ns AND c.checkpoint_id = a.id
      )
      SELECT 'seed' AS kind, r.channel AS channel, r.depth AS depth, NULL AS task_id,
             iif(r.ref ->> 2 IS NULL, b.type, 'json') AS type,
             iif(r.ref ->> 2 IS NULL, b.value, iif(r.ref ->> 0 = '', r.vals, h.vals) -> (r.ref ->> 2)) AS value,
             '' AS task_path, 0 AS idx, r.ref ->> 1 AS version
        FROM seed_refs r
        LEFT JOIN checkpoint_blobs b ON r.ref ->> 2 IS NULL AND b.id = r.ref ->> 0
        LEFT JOIN checkpoints h ON r.ref ->> 2 IS NOT NULL AND r.ref ->> 0 <> ''
          AND h.thread_id = :thread AND h.checkpoint_ns = :ns AND h.checkpoint_id = r.ref ->> 0
       WHERE b.id IS NOT NULL OR (r.ref ->> 2 IS NOT NULL AND (r.ref ->> 0 = '' OR h.checkpoint_id IS NOT NULL))
      UNION ALL
      SELECT 'write', w.channel, a.depth, w.task_id, w.type, w.value, w.task_path, w.idx, NULL
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

  /** Forgets the decoded writes kept (the saver closed). */
  forgetDecoded(): void {
    this.writes.clear();
  }

  /** The history of each requested channel below checkpoint `id`; the cached seeds of `shared` channels uncopied. */
  async read(codec: Codec, thread: string, ns: string, id: string, channels: string[], cache?: DecodedValues, shared?: ReadonlySet<string>): Promise<Record<string, DeltaChannelHistory>> {
    const rows = this.history.all({ thread, ns, id, channels: JSON.stringify(channels) });
    const share = (channel: string) => shared?.has(channel) === true;
    return foldDeltaHistory(codec, channels, rows,
      cache && ((row, decode) => cache.load({ thread, ns, channel: row.channel, version: row.version }, row.value, decode, share(row.channel))),
      (row, decode) => this.writes.load(row.type, row.value, decode, share(row.channel)));
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
