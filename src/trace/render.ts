/**
 * The text view of a trace: a tree of spans, one line each with status,
 * duration, tokens, cost and a timeline bar over the run's extent, so spans
 * of parallel branches show as overlapping bars on consecutive lines.
 * @module
 */
import { formatCost, formatDuration, formatTokens } from "./format.js";
import { isInstantKind, type TraceSpan } from "./types.js";

/** How {@link renderTraceTree} lays out lines. */
export interface RenderOptions {
  /** Total line width in characters. @default 120 */
  width?: number;
  /** End of the timeline for spans still running, epoch ms. @default the latest start or end recorded */
  now?: number;
  /** Longest name column before names are cut with "…". @default 56 */
  maxLabel?: number;
}

interface Node {
  span: TraceSpan;
  children: Node[];
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

const BAR = { ok: "█", error: "▒", canceled: "▒", running: "░" } as const;
const EMPTY = "·";
const INSTANT = "◆";

/**
 * Renders spans (of one run) as a tree; children are ordered by start time.
 * @example console.log(renderTraceTree(store.spans("run_01"), { width: 100 }))
 */
export function renderTraceTree(spans: readonly TraceSpan[], options: RenderOptions = {}): string {
  if (spans.length === 0) return "";
  const roots = buildTree(spans);
  const t0 = Math.min(...spans.map((s) => s.startMs));
  const t1 = options.now ?? Math.max(...spans.map((s) => s.endMs ?? s.startMs));
  const rows: { label: string; node: Node }[] = [];
  const walk = (node: Node, prefix: string, childPrefix: string) => {
    rows.push({ label: prefix + label(node.span), node });
    node.children.forEach((child, i) => {
      const last = i === node.children.length - 1;
      walk(child, childPrefix + (last ? "└── " : "├── "), childPrefix + (last ? "    " : "│   "));
    });
  };
  for (const root of roots) walk(root, "", "");

  const maxLabel = options.maxLabel ?? 56;
  const labelWidth = Math.min(maxLabel, Math.max(...rows.map((r) => r.label.length)));
  const cells = rows.map(({ label: text, node }) => [fit(text, labelWidth), ...columns(node, t1)] as const);
  const widths = [1, 2, 3, 4].map((c) => Math.max(...cells.map((cell) => cell[c]?.length ?? 0)));
  const fixed = labelWidth + widths.reduce((a, b) => a + b + 2, 0) + 2;
  const barWidth = Math.max(10, (options.width ?? 120) - fixed - 2);
  return cells
    .map((cell, i) => {
      const node = rows[i]!.node;
      const parts = [cell[0].padEnd(labelWidth), (cell[1] ?? "").padEnd(widths[0]!), ...[2, 3, 4].map((c) => (cell[c] ?? "").padStart(widths[c - 1]!))];
      return `${parts.join("  ")}  |${bar(node.span, t0, t1, barWidth)}|`;
    })
    .join("\n");
}

function buildTree(spans: readonly TraceSpan[]): Node[] {
  const nodes = new Map<string, Node>();
  for (const span of spans) nodes.set(span.spanId, { span, children: [], inputTokens: 0, outputTokens: 0, costUsd: 0 });
  const roots: Node[] = [];
  for (const node of nodes.values()) {
    const parent = node.span.parentId === null ? undefined : nodes.get(node.span.parentId);
    (parent?.children ?? roots).push(node);
  }
  const order = new Map(spans.map((s, i) => [s.spanId, i]));
  const sortRec = (list: Node[]) => {
    list.sort((a, b) => a.span.startMs - b.span.startMs || order.get(a.span.spanId)! - order.get(b.span.spanId)!);
    for (const n of list) sortRec(n.children);
  };
  sortRec(roots);
  const sum = (node: Node): Node => {
    node.inputTokens = node.span.inputTokens ?? 0;
    node.outputTokens = node.span.outputTokens ?? 0;
    node.costUsd = node.span.costUsd ?? 0;
    for (const child of node.children.map(sum)) {
      node.inputTokens += child.inputTokens;
      node.outputTokens += child.outputTokens;
      node.costUsd += child.costUsd;
    }
    return node;
  };
  roots.forEach(sum);
  return roots;
}

function label(span: TraceSpan): string {
  if (span.kind === "state_change") return `state ${span.name}`;
  if (span.kind === "error_event") return `error ${span.error ?? span.name}`;
  const attempt = span.attempt !== null && span.attempt > 1 ? ` (attempt ${span.attempt})` : "";
  return span.name + attempt;
}

function columns(node: Node, t1: number): string[] {
  const { span } = node;
  const instant = isInstantKind(span.kind);
  const status = instant ? "" : span.status;
  const duration = instant ? "" : span.endMs === null ? `${formatDuration(t1 - span.startMs)}+` : formatDuration(span.endMs - span.startMs);
  const hasUsage = node.inputTokens > 0 || node.outputTokens > 0 || span.kind === "model_call";
  return [status, duration, hasUsage ? formatTokens(node.inputTokens, node.outputTokens) : "", hasUsage || node.costUsd > 0 ? formatCost(node.costUsd) : ""];
}

function bar(span: TraceSpan, t0: number, t1: number, width: number): string {
  const total = t1 - t0;
  const pos = (t: number) => (total <= 0 ? 0 : ((t - t0) / total) * width);
  const cells = new Array<string>(width).fill(EMPTY);
  const from = Math.min(width - 1, Math.max(0, Math.floor(pos(span.startMs))));
  if (isInstantKind(span.kind)) {
    cells[from] = INSTANT;
    return cells.join("");
  }
  const end = span.endMs ?? t1;
  const to = Math.min(width, Math.max(from + 1, Math.ceil(pos(end))));
  cells.fill(BAR[span.status], from, to);
  return cells.join("");
}

function fit(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
