/**
 * The chunk log on PostgreSQL (see chunk-log.ts for the design): a watch, an append and a read are one statement
 * each; an append's NOTIFY is part of its statement, so readers hear of chunks only once they are committed.
 * @module
 */
import { migrateOnce, notificationChannel, type PostgresDatabase } from "../db/postgres/index.js";
import type { ChunkListener, ChunkLog, LoggedChunk, RunWatch, WatchListener } from "./chunk-log.js";
import { PG_STREAMS_SCHEMA } from "./postgres-schema.js";

/** A watch that never saw an execution rest (its run was canceled while queued) is dropped this long after the cutoff. */
const STALE_WATCH_EXTRA_MS = 24 * 3600_000;

const WATCH = `
INSERT INTO run_streams AS s (run_id, modes, updated_at) VALUES ($1, $2::jsonb, $3)
ON CONFLICT (run_id) DO UPDATE SET updated_at = excluded.updated_at,
  modes = (SELECT jsonb_agg(DISTINCT m) FROM jsonb_array_elements(s.modes || excluded.modes) AS m)
RETURNING last_seq::float8 AS last_seq, pg_notify($4, $5)`;

// The row lock of the upsert orders concurrent appenders of one run (an execution and a late one it replaced).
const APPEND = `
WITH bump AS (
  INSERT INTO run_streams AS s (run_id, modes, last_seq, updated_at, rested_at) VALUES ($1, '[]', $2::bigint, $3, $4::bigint)
  ON CONFLICT (run_id) DO UPDATE SET last_seq = s.last_seq + $2::bigint, updated_at = $3, rested_at = $4::bigint
  RETURNING last_seq
), ins AS (
  INSERT INTO run_stream_chunks (run_id, seq, mode, payload, at)
  SELECT $1, b.last_seq - $2::bigint + c.ord, c.elem->>'mode', c.elem->'payload', $3
  FROM bump b, jsonb_array_elements($5::jsonb) WITH ORDINALITY AS c(elem, ord)
)
SELECT last_seq::float8 AS last_seq, pg_notify($6, $1::text || ':' || last_seq::text) FROM bump`;

const READ = `SELECT seq::float8 AS seq, mode, payload FROM run_stream_chunks WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;

const SWEEP = `
WITH gone AS (DELETE FROM run_streams WHERE rested_at < $1 OR (rested_at IS NULL AND updated_at < $2) RETURNING run_id),
  dropped AS (DELETE FROM run_stream_chunks c USING gone WHERE c.run_id = gone.run_id)
SELECT count(*)::int AS n FROM gone`;

/** Stream chunks of watched runs in a PostgreSQL schema, shared by every process on it. */
export class PostgresChunkLog implements ChunkLog {
  readonly #db: PostgresDatabase;
  readonly #migrate: () => Promise<void>;
  readonly #chunksChannel: string;
  readonly #watchesChannel: string;
  readonly #localWatch = new Set<WatchListener>();
  readonly #localChunks = new Set<ChunkListener>();
  readonly #clock: () => number;

  /** A log on `db`; its tables are created or migrated by {@link PostgresChunkLog.setup} (or the first operation). */
  constructor(db: PostgresDatabase, options: { clock?: () => number } = {}) {
    this.#db = db;
    this.#migrate = migrateOnce(db, PG_STREAMS_SCHEMA);
    this.#chunksChannel = notificationChannel(db.schema, "chunks");
    this.#watchesChannel = notificationChannel(db.schema, "watches");
    this.#clock = options.clock ?? Date.now;
  }

  /** Creates or migrates the tables once; later calls cost nothing. */
  setup(): Promise<void> {
    return this.#migrate();
  }

  async watch(runId: string, modes: readonly string[]): Promise<number> {
    await this.setup();
    const payload = JSON.stringify({ runId, modes });
    const result = await this.#db.query<{ last_seq: number }>(WATCH, [runId, JSON.stringify(modes), this.#clock(), this.#watchesChannel, payload]);
    // This process's own executions hear it now, not a NOTIFY round later (a run about to be started here).
    for (const listener of [...this.#localWatch]) listener.onWatch({ runId, modes });
    return Number(result.rows[0]?.last_seq ?? 0);
  }

  async watches(): Promise<RunWatch[]> {
    await this.setup();
    const result = await this.#db.query<{ run_id: string; modes: string[] }>("SELECT run_id, modes FROM run_streams");
    return result.rows.map((r) => ({ runId: r.run_id, modes: r.modes }));
  }

  async append(runId: string, chunks: readonly { mode: string; payload: unknown }[], rested: boolean): Promise<number> {
    await this.setup();
    const now = this.#clock();
    const result = await this.#db.query<{ last_seq: number }>(APPEND, [
      runId, chunks.length, now, rested ? now : null, JSON.stringify(chunks), this.#chunksChannel,
    ]);
    const lastSeq = Number(result.rows[0]?.last_seq ?? 0);
    for (const listener of [...this.#localChunks]) listener.onChunks(runId, lastSeq);
    return lastSeq;
  }

  async read(runId: string, afterSeq: number, limit: number): Promise<LoggedChunk[]> {
    await this.setup();
    const result = await this.#db.query<{ seq: number; mode: string; payload: unknown }>(READ, [runId, afterSeq, limit]);
    return result.rows.map((r) => ({ seq: Number(r.seq), mode: r.mode, payload: r.payload }));
  }

  async sweep(cutoff: number): Promise<number> {
    await this.setup();
    const result = await this.#db.query<{ n: number }>(SWEEP, [cutoff, cutoff - STALE_WATCH_EXTRA_MS]);
    return result.rows[0]?.n ?? 0;
  }

  async onWatch(listener: WatchListener): Promise<() => Promise<void>> {
    this.#localWatch.add(listener);
    const stop = await this.#db.notifications.listen(this.#watchesChannel, {
      onMessage: (payload) => {
        const watch = parseWatch(payload);
        if (watch !== undefined) listener.onWatch(watch);
      },
      onGap: () => listener.onGap?.(),
    });
    return async () => {
      this.#localWatch.delete(listener);
      await stop();
    };
  }

  async onChunks(listener: ChunkListener): Promise<() => Promise<void>> {
    this.#localChunks.add(listener);
    const stop = await this.#db.notifications.listen(this.#chunksChannel, {
      onMessage: (payload) => {
        const at = payload.lastIndexOf(":");
        const lastSeq = Number(payload.slice(at + 1));
        if (at > 0 && Number.isSafeInteger(lastSeq)) listener.onChunks(payload.slice(0, at), lastSeq);
      },
      onGap: () => listener.onGap?.(),
    });
    return async () => {
      this.#localChunks.delete(listener);
      await stop();
    };
  }
}

function parseWatch(payload: string): RunWatch | undefined {
  try {
    const parsed = JSON.parse(payload) as { runId?: unknown; modes?: unknown };
    if (typeof parsed.runId !== "string" || !Array.isArray(parsed.modes)) return undefined;
    return { runId: parsed.runId, modes: parsed.modes.filter((m): m is string => typeof m === "string") };
  } catch {
    return undefined;
  }
}
