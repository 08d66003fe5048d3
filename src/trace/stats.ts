/**
 * Aggregates over stored spans: slowest tools, failure rates, retries, and
 * tokens and cost per graph and per run.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";

/** Which spans {@link computeStats} looks at. */
export interface StatsOptions {
  /** Only runs of this graph. @default every graph */
  graph?: string;
  /** How many of the most recent runs to list. @default 20 */
  recentRuns?: number;
}

/** Tokens and cost of some model calls. */
export interface UsageTotals {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/** Latency and reliability of one tool, over finished calls. */
export interface ToolStats {
  tool: string;
  calls: number;
  failures: number;
  /** failures / calls, 0..1. */
  failureRate: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Calls with attempt > 1. */
  retries: number;
}

/** UsageTotals of one graph over all its runs. */
export interface GraphStats extends UsageTotals {
  graph: string;
  runs: number;
}

/** UsageTotals of one run. */
export interface RunStats extends UsageTotals {
  runId: string;
  graph: string | null;
  /** The last lifecycle status recorded, else the root span's status. */
  status: string;
  startMs: number;
  /** `null` while the run is not finished. */
  durationMs: number | null;
  toolCalls: number;
  retries: number;
}

/** What `agentrt stats` shows. */
export interface TraceStats {
  graph: string | null;
  runs: number;
  totals: UsageTotals & { retries: number };
  /** Slowest first (by p95). */
  tools: ToolStats[];
  graphs: GraphStats[];
  /** Most recent first. */
  recentRuns: RunStats[];
}

/**
 * Nearest-rank percentile of ascending `sorted` values (0 for none).
 * @example percentile([10, 20, 30, 40], 50) // 20
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

// A retry is a tool call with attempt > 1, or a `retry` span without a tool (e.g. a retried model call);
// tool backoff `retry` spans are not counted again.
const RETRY_EXPR = "((kind = 'tool_call' AND attempt > 1) OR (kind = 'retry' AND tool IS NULL))";
const USAGE_COLUMNS = `SUM(kind = 'model_call') AS modelCalls, COALESCE(SUM(input_tokens), 0) AS inputTokens,
  COALESCE(SUM(output_tokens), 0) AS outputTokens, COALESCE(SUM(cost_usd), 0) AS costUsd`;

/** Computes {@link TraceStats}; `hasTable` false gives empty stats for a database without traces. */
export function computeStats(db: SqliteDatabase, hasTable: boolean, options: StatsOptions = {}): TraceStats {
  const graph = options.graph ?? null;
  if (!hasTable) return emptyStats(graph);
  const where = "(@graph IS NULL OR graph = @graph)";
  const totals = db
    .prepare(`SELECT COUNT(DISTINCT run_id) AS runs, ${USAGE_COLUMNS}, SUM(${RETRY_EXPR}) AS retries FROM spans WHERE ${where}`)
    .get({ graph }) as { runs: number; retries: number | null; modelCalls: number | null } & Omit<UsageTotals, "modelCalls">;
  const graphs = db
    .prepare(`SELECT COALESCE(graph, '(none)') AS graph, COUNT(DISTINCT run_id) AS runs, ${USAGE_COLUMNS}
      FROM spans WHERE ${where} GROUP BY graph ORDER BY costUsd DESC, graph`)
    .all({ graph }) as GraphStats[];
  return {
    graph,
    runs: totals.runs,
    totals: {
      modelCalls: totals.modelCalls ?? 0,
      inputTokens: totals.inputTokens,
      outputTokens: totals.outputTokens,
      costUsd: totals.costUsd,
      retries: totals.retries ?? 0,
    },
    tools: toolStats(db, graph),
    graphs,
    recentRuns: recentRuns(db, graph, options.recentRuns ?? 20),
  };
}

function toolStats(db: SqliteDatabase, graph: string | null): ToolStats[] {
  const rows = db
    .prepare(`SELECT tool, status, end_ms - start_ms AS ms, attempt FROM spans
      WHERE kind = 'tool_call' AND end_ms IS NOT NULL AND tool IS NOT NULL AND (@graph IS NULL OR graph = @graph)`)
    .all({ graph }) as { tool: string; status: string; ms: number; attempt: number | null }[];
  const byTool = new Map<string, { durations: number[]; failures: number; retries: number }>();
  for (const row of rows) {
    let entry = byTool.get(row.tool);
    if (entry === undefined) byTool.set(row.tool, (entry = { durations: [], failures: 0, retries: 0 }));
    entry.durations.push(row.ms);
    if (row.status === "error") entry.failures++;
    if ((row.attempt ?? 1) > 1) entry.retries++;
  }
  return summarizeTools([...byTool].map(([tool, entry]) => ({ tool, ...entry })));
}

/** Stats with nothing in them: a database without traces, or a graph without runs. */
export function emptyStats(graph: string | null): TraceStats {
  return { graph, runs: 0, totals: { modelCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, retries: 0 }, tools: [], graphs: [], recentRuns: [] };
}

/** The finished calls of one tool, as both stores gather them. */
export interface ToolCalls {
  tool: string;
  /** Durations in ms, any order (sorted here). */
  durations: number[];
  failures: number;
  retries: number;
}

/** {@link ToolStats} per tool, slowest first (by p95, then p50, then name). */
export function summarizeTools(calls: readonly ToolCalls[]): ToolStats[] {
  const tools: ToolStats[] = [];
  for (const { tool, durations, failures, retries } of calls) {
    durations.sort((a, b) => a - b);
    tools.push({
      tool,
      calls: durations.length,
      failures,
      failureRate: failures / durations.length,
      p50Ms: percentile(durations, 50),
      p95Ms: percentile(durations, 95),
      maxMs: durations[durations.length - 1] ?? 0,
      retries,
    });
  }
  return tools.sort((a, b) => b.p95Ms - a.p95Ms || b.p50Ms - a.p50Ms || a.tool.localeCompare(b.tool));
}

function recentRuns(db: SqliteDatabase, graph: string | null, limit: number): RunStats[] {
  const rows = db
    .prepare(`SELECT run_id AS runId, MAX(CASE WHEN parent_id IS NULL THEN graph END) AS graph,
        MAX(CASE WHEN parent_id IS NULL THEN COALESCE(json_extract(extra_json, '$."run.status"'), status) END) AS status,
        MIN(start_ms) AS startMs,
        MAX(CASE WHEN parent_id IS NULL AND end_ms IS NOT NULL THEN end_ms - start_ms END) AS durationMs,
        ${USAGE_COLUMNS}, SUM(kind = 'tool_call') AS toolCalls, SUM(${RETRY_EXPR}) AS retries
      FROM spans WHERE (@graph IS NULL OR graph = @graph)
      GROUP BY run_id ORDER BY startMs DESC, run_id LIMIT @limit`)
    .all({ graph, limit }) as (RunStats & { status: string | null })[];
  return rows.map((r) => ({ ...r, status: r.status ?? "unknown" }));
}
