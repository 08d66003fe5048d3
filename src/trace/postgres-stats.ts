/**
 * {@link TraceStats} on PostgreSQL in one statement: totals, graphs and recent runs aggregated in SQL, each tool's
 * durations gathered sorted for the nearest-rank percentiles computed as on SQLite. Text is ordered bytewise
 * (COLLATE "C") and NULL first, as SQLite orders it.
 * @module
 */
import type { PostgresDatabase } from "../db/postgres/index.js";
import { numeric } from "./postgres-sql.js";
import { emptyStats, summarizeTools, type GraphStats, type RunStats, type StatsOptions, type ToolCalls, type TraceStats } from "./stats.js";

// As in stats.ts: a retry is a tool call with attempt > 1, or a `retry` span without a tool.
const RETRY = "((kind = 'tool_call' AND attempt > 1) OR (kind = 'retry' AND tool IS NULL))";
const USAGE = `'modelCalls', count(*) FILTER (WHERE kind = 'model_call'), 'inputTokens', COALESCE(sum(input_tokens), 0),
  'outputTokens', COALESCE(sum(output_tokens), 0), 'costUsd', COALESCE(sum(cost_usd), 0)`;

const STATS_SQL = `WITH s AS (SELECT * FROM spans WHERE $1::text IS NULL OR graph = $1)
SELECT
  (SELECT json_build_object('runs', count(DISTINCT run_id), ${USAGE}, 'retries', count(*) FILTER (WHERE ${RETRY})) FROM s) AS totals,
  (SELECT COALESCE(json_agg(g.j ORDER BY g.cost DESC, g.name COLLATE "C"), '[]') FROM (
     SELECT json_build_object('graph', COALESCE(graph, '(none)'), 'runs', count(DISTINCT run_id), ${USAGE}) AS j,
       COALESCE(sum(cost_usd), 0) AS cost, COALESCE(graph, '(none)') AS name
     FROM s GROUP BY graph) g) AS graphs,
  (SELECT COALESCE(json_agg(t), '[]') FROM (
     SELECT tool, array_agg(end_ms - start_ms) AS durations, count(*) FILTER (WHERE status = 'error') AS failures,
       count(*) FILTER (WHERE COALESCE(attempt, 1) > 1) AS retries
     FROM s WHERE kind = 'tool_call' AND end_ms IS NOT NULL AND tool IS NOT NULL GROUP BY tool) t) AS tools,
  (SELECT COALESCE(json_agg(r.j ORDER BY r.start DESC, r.run_id COLLATE "C"), '[]') FROM (
     SELECT run_id, min(start_ms) AS start, json_build_object(
       'runId', run_id, 'graph', max(graph) FILTER (WHERE parent_id IS NULL),
       'status', max(COALESCE(extra_json::jsonb ->> 'run.status', status)) FILTER (WHERE parent_id IS NULL),
       'startMs', min(start_ms),
       'durationMs', max(end_ms - start_ms) FILTER (WHERE parent_id IS NULL AND end_ms IS NOT NULL),
       ${USAGE}, 'toolCalls', count(*) FILTER (WHERE kind = 'tool_call'), 'retries', count(*) FILTER (WHERE ${RETRY})) AS j
     FROM s GROUP BY run_id ORDER BY min(start_ms) DESC, run_id COLLATE "C" LIMIT $2) r) AS recent`;

interface Row {
  totals: { runs: number; retries: number } & Omit<GraphStats, "graph" | "runs">;
  graphs: GraphStats[];
  tools: ToolCalls[];
  recent: (RunStats & { status: string | null })[];
}

/** Computes {@link TraceStats} over the spans of a PostgreSQL schema. */
export async function computePostgresStats(db: PostgresDatabase, options: StatsOptions = {}): Promise<TraceStats> {
  const graph = options.graph ?? null;
  const result = await db.query(numeric(STATS_SQL, [graph, options.recentRuns ?? 20]));
  const row = result.rows[0] as Row | undefined;
  if (row === undefined || row.totals.runs === 0) return emptyStats(graph);
  const { runs, ...totals } = row.totals;
  return {
    graph,
    runs,
    totals,
    tools: summarizeTools(row.tools),
    graphs: row.graphs,
    recentRuns: row.recent.map((r) => ({ ...r, status: r.status ?? "unknown" })),
  };
}
