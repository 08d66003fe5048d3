import { displayDatabase } from "../../db/index.js";
import { UserInputError } from "../../errors.js";
import {
  formatCost,
  formatDuration,
  formatTokens,
  openTraceReader,
  renderTraceTree,
  spanToJson,
  type TraceSpan,
} from "../../trace/index.js";
import type { Command, CommandContext } from "../command.js";
import { READ_SQLITE, withCommandDatabase } from "../command-database.js";

/** `agentrt trace <run_id>`: the span tree of one run, or its raw spans with `--json`. */
export const traceCommand: Command = {
  name: "trace",
  summary: "Show a run's spans as a tree with duration, tokens, cost and a timeline",
  usage: "agentrt trace <run_id> [--width N] [--db PATH|URL] [--json]",
  flags: {
    width: { type: "string", value: "N", description: "Characters per line for the tree and its timeline, 40 to 1000. Default: the terminal's width, else 120." },
  },
  examples: ["agentrt trace run_01J…", "agentrt trace run_01J… --json"],
  async run(ctx) {
    const runId = singleRunId(ctx);
    const width = parseWidth(ctx.flags.width);
    const spans = await withCommandDatabase(ctx.db, READ_SQLITE, async (db) => (await openTraceReader(db)).spans(runId));
    if (spans.length === 0) throw new UserInputError("UNKNOWN_RUN", `no trace for run "${runId}" in ${displayDatabase(ctx.db)}`);
    if (ctx.json) {
      ctx.out(JSON.stringify({ run_id: runId, spans: spans.map(spanToJson) }));
      return 0;
    }
    ctx.out(summaryLine(runId, spans));
    // A run still open (waiting for a person) is drawn up to now, so the wait shows its true length.
    const open = spans.some((s) => s.parentId === null && s.endMs === null);
    ctx.out(renderTraceTree(spans, { width, ...(open ? { now: Math.max(Date.now(), ...spans.map((s) => s.endMs ?? s.startMs)) } : {}) }));
    return 0;
  },
};

function singleRunId(ctx: CommandContext): string {
  const [runId, ...extra] = ctx.args;
  if (runId === undefined || runId === "") throw new UserInputError("BAD_INPUT", "missing run id (usage: agentrt trace <run_id>)");
  if (extra.length > 0) throw new UserInputError("BAD_INPUT", `expected one run id, got ${ctx.args.length}`);
  return runId;
}

function parseWidth(value: string | boolean | (string | boolean)[] | undefined): number {
  if (value === undefined) return process.stdout.isTTY ? Math.max(80, process.stdout.columns) : 120;
  const width = Number(value);
  if (!Number.isInteger(width) || width < 40 || width > 1000) {
    throw new UserInputError("BAD_INPUT", `--width must be an integer between 40 and 1000, got "${JSON.stringify(value)}"`);
  }
  return width;
}

function summaryLine(runId: string, spans: readonly TraceSpan[]): string {
  const root = spans.find((s) => s.kind === "invoke_agent" && s.parentId === null);
  const status = root?.extra["run.status"] ?? root?.status ?? "unknown";
  const input = spans.reduce((n, s) => n + (s.inputTokens ?? 0), 0);
  const output = spans.reduce((n, s) => n + (s.outputTokens ?? 0), 0);
  const cost = spans.reduce((n, s) => n + (s.costUsd ?? 0), 0);
  const duration = root?.endMs == null ? "running" : formatDuration(root.endMs - root.startMs);
  const parts = [`run ${runId}`, `graph ${root?.graph ?? "-"}`, `status ${String(status)}`, duration, formatTokens(input, output), formatCost(cost)];
  return `${parts.join("  ")}  (${spans.length} spans)`;
}
