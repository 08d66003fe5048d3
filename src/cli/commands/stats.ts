import { UserInputError } from "../../errors.js";
import { formatCost, formatDuration, formatRate, formatTokens, openTraceReader, type TraceStats } from "../../trace/index.js";
import type { Command } from "../command.js";
import { READ_SQLITE, withCommandDatabase } from "../command-database.js";
import { renderTable } from "../text-table.js";

/** `agentrt stats [--graph G]`: slowest tools, failure rates, retries, tokens and cost per graph and run. */
export const statsCommand: Command = {
  name: "stats",
  summary: "Show tool latency (p50/p95), failure rates, retries, tokens and cost per graph and per run",
  usage: "agentrt stats [--graph G] [--runs N] [--db PATH|URL] [--json]",
  flags: {
    graph: { type: "string", value: "G", description: "Only the runs of this graph." },
    runs: { type: "string", value: "N", description: "How many recent runs to list, 0 to 10000. Default: 20." },
  },
  examples: ["agentrt stats", "agentrt stats --graph ops_rollback --runs 5 --json"],
  async run(ctx) {
    const graph = ctx.flags.graph === undefined ? undefined : String(ctx.flags.graph);
    if (ctx.args.length > 0) throw new UserInputError("BAD_INPUT", `unexpected argument "${ctx.args[0]}"`);
    const recentRuns = parseRuns(ctx.flags.runs);
    const stats = await withCommandDatabase(ctx.db, READ_SQLITE, async (db) => (await openTraceReader(db)).stats({ graph, recentRuns }));
    if (ctx.json) ctx.out(JSON.stringify(stats));
    else for (const line of renderStats(stats)) ctx.out(line);
    return 0;
  },
};

function parseRuns(value: string | boolean | (string | boolean)[] | undefined): number {
  if (value === undefined) return 20;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 10_000) throw new UserInputError("BAD_INPUT", `--runs must be an integer between 0 and 10000, got "${JSON.stringify(value)}"`);
  return n;
}

/** The human form of {@link TraceStats}: a summary line and three aligned tables. */
export function renderStats(stats: TraceStats): string[] {
  const t = stats.totals;
  const lines = [
    `graph ${stats.graph ?? "(all)"}  runs ${stats.runs}  model calls ${t.modelCalls}  ${formatTokens(t.inputTokens, t.outputTokens)}  cost ${formatCost(t.costUsd)}  retries ${t.retries}`,
  ];
  if (stats.runs === 0) return [...lines, "no traced runs"];
  lines.push("", "Tools (slowest p95 first)");
  lines.push(
    ...table(
      ["tool", "calls", "failed", "fail rate", "p50", "p95", "max", "retries"],
      stats.tools.map((s) => [s.tool, s.calls, s.failures, formatRate(s.failureRate), formatDuration(s.p50Ms), formatDuration(s.p95Ms), formatDuration(s.maxMs), s.retries]),
    ),
  );
  lines.push("", "Graphs");
  lines.push(
    ...table(
      ["graph", "runs", "model calls", "tokens", "cost", "cost/run"],
      stats.graphs.map((g) => [g.graph, g.runs, g.modelCalls, formatTokens(g.inputTokens, g.outputTokens), formatCost(g.costUsd), formatCost(g.costUsd / Math.max(1, g.runs))]),
    ),
  );
  lines.push("", `Recent runs (${stats.recentRuns.length} of ${stats.runs})`);
  lines.push(
    ...table(
      ["run", "graph", "status", "duration", "tokens", "cost", "tool calls", "retries"],
      stats.recentRuns.map((r) => [
        r.runId, r.graph ?? "-", r.status, r.durationMs === null ? "-" : formatDuration(r.durationMs),
        formatTokens(r.inputTokens, r.outputTokens), formatCost(r.costUsd), r.toolCalls, r.retries,
      ]),
    ),
  );
  return lines;
}

function table(header: string[], rows: (string | number)[][]): string[] {
  // First column left-aligned (names), the rest right-aligned (numbers).
  return renderTable(header, rows, { indent: "  ", align: header.map((_, c) => (c === 0 ? "left" : "right")) });
}
