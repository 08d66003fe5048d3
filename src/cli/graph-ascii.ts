/**
 * A graph drawn for the terminal (`agentrt graph <id>`): nodes in boxes, rows top to bottom, arrows between
 * adjacent rows; edges that loop back or skip rows run down the right margin, each in its own column, and
 * enter their target from above. Conditional edges are dashed. LangGraph.js has no ASCII drawing of its own
 * (@langchain/core's Graph draws Mermaid only), so this is agentrt's.
 * @module
 */
import { layoutGraph, type GraphEdge, type GraphShape } from "./graph-layout.js";
import { TextCanvas } from "./text-canvas.js";

export type { GraphEdge, GraphShape } from "./graph-layout.js";

/** Spaces between two boxes of a row. */
const BOX_GAP = 3;
/** Rows a box takes: top border, label, bottom border. */
const BOX_HEIGHT = 3;

interface Box {
  x: number;
  y: number;
  width: number;
  center: number;
}

/** Edges from one row to the next that share a horizontal line: the same targets, all conditional or none. */
interface Track {
  sources: string[];
  targets: string[];
  dashed: boolean;
}

/** The drawing, lines joined with newlines, no trailing spaces. */
export function drawGraphAscii(shape: GraphShape): string {
  const layout = layoutGraph(shape);
  const rowOf = (node: string): number => layout.rowOf.get(node) ?? 0;
  const margin = shape.edges.filter((e) => layout.backEdges.has(e) || rowOf(e.target) - rowOf(e.source) !== 1);
  // Shorter detours get the columns nearer the boxes, so longer ones go around them.
  margin.sort((a, b) => Math.abs(rowOf(a.target) - rowOf(a.source)) - Math.abs(rowOf(b.target) - rowOf(b.source)));
  const exitPort = portsOf(margin, (e) => e.source);
  const entryPort = portsOf(margin, (e) => e.target);
  const portCount = (node: string): number =>
    Math.max(margin.filter((e) => e.source === node).length, margin.filter((e) => e.target === node).length);

  const widthOf = (node: string): number => Math.max(node.length + 4, portCount(node) === 0 ? 0 : 4 * portCount(node) + 4);
  const rowWidth = (row: string[]): number => row.reduce((sum, node) => sum + widthOf(node), 0) + BOX_GAP * (row.length - 1);
  const contentWidth = Math.max(...layout.rows.map(rowWidth));
  const boxes = new Map<string, Box>();
  const canvas = new TextCanvas();
  const arrowLine = new Map<number, number>();
  const exitLine = new Map<GraphEdge, number>();
  const entryLine = new Map<GraphEdge, number>();
  const trackLine = new Map<Track, number>();
  const tracks: Track[] = [];

  let y = 0;
  for (let gap = -1; gap < layout.rows.length; gap++) {
    const row = layout.rows[gap];
    if (row !== undefined) {
      let x = Math.floor(contentWidth / 2) - Math.floor(rowWidth(row) / 2);
      for (const node of row) {
        const width = widthOf(node);
        boxes.set(node, { x, y, width, center: x + Math.floor(width / 2) });
        x += width + BOX_GAP;
      }
      y += BOX_HEIGHT;
    }
    // The gap below this row: exits (right-most port on top), tracks, entries (right-most port lowest), arrows.
    const exits = margin.filter((e) => rowOf(e.source) === gap).sort((a, b) => portX(b.source, exitPort.get(b)) - portX(a.source, exitPort.get(a)));
    const gapTracks = tracksBetween(layout.rows[gap] ?? [], layout.rows[gap + 1] ?? [], shape.edges, margin);
    const entries = margin.filter((e) => rowOf(e.target) === gap + 1).sort((a, b) => (entryPort.get(a) ?? 0) - (entryPort.get(b) ?? 0));
    for (const edge of exits) exitLine.set(edge, y++);
    for (const track of gapTracks) trackLine.set(track, y++);
    tracks.push(...gapTracks);
    for (const edge of entries) entryLine.set(edge, y++);
    if (gapTracks.length + entries.length > 0) arrowLine.set(gap + 1, y++);
    else if (exits.length === 0 && gap >= 0 && gap < layout.rows.length - 1) y++;
  }

  function portX(node: string, port: number | undefined): number {
    const box = boxes.get(node);
    return box === undefined ? 0 : box.center + 2 * ((port ?? 0) + 1);
  }

  for (const [node, box] of boxes) {
    const inner = box.width - 2;
    const left = Math.floor((inner - node.length) / 2);
    canvas.write(box.x, box.y, `┌${"─".repeat(inner)}┐`);
    canvas.write(box.x, box.y + 1, `│${" ".repeat(left)}${node}${" ".repeat(inner - left - node.length)}│`);
    canvas.write(box.x, box.y + 2, `└${"─".repeat(inner)}┘`);
  }
  const bottom = (node: string): number => (boxes.get(node)?.y ?? 0) + BOX_HEIGHT - 1;
  const junctions: [number, number, string][] = [];
  for (const track of tracks) {
    const line = trackLine.get(track) ?? 0;
    const arrows = arrowLine.get(rowOf(track.targets[0] ?? "")) ?? line + 1;
    const xs: number[] = [];
    for (const source of track.sources) {
      const x = boxes.get(source)?.center ?? 0;
      canvas.vertical(x, bottom(source), line, track.dashed);
      junctions.push([x, bottom(source), "┬"]);
      xs.push(x);
    }
    for (const target of track.targets) {
      const x = boxes.get(target)?.center ?? 0;
      canvas.vertical(x, line, arrows, track.dashed);
      junctions.push([x, arrows, "▼"]);
      xs.push(x);
    }
    canvas.horizontal(line, Math.min(...xs), Math.max(...xs), track.dashed);
  }
  margin.forEach((edge, i) => {
    const column = contentWidth + 2 + 2 * i;
    const dashed = edge.conditional === true;
    const from = portX(edge.source, exitPort.get(edge));
    const to = portX(edge.target, entryPort.get(edge));
    const out = exitLine.get(edge) ?? 0;
    const into = entryLine.get(edge) ?? 0;
    const arrows = arrowLine.get(rowOf(edge.target)) ?? into + 1;
    canvas.vertical(from, bottom(edge.source), out, dashed);
    canvas.horizontal(out, from, column, dashed);
    canvas.vertical(column, out, into, dashed);
    canvas.horizontal(into, column, to, dashed);
    canvas.vertical(to, into, arrows, dashed);
    junctions.push([from, bottom(edge.source), "┬"], [to, arrows, "▼"]);
  });
  for (const [x, at, ch] of junctions) canvas.write(x, at, ch);

  const lines = canvas.render();
  if (shape.edges.some((e) => e.conditional === true)) lines.push("", "┆ ╌ conditional edge: taken when the node above chooses it");
  return lines.join("\n");
}

/** For each edge, its index among the edges of the same node (by `end`): the port it uses on that box. */
function portsOf(edges: readonly GraphEdge[], end: (edge: GraphEdge) => string): Map<GraphEdge, number> {
  const count = new Map<string, number>();
  return new Map(edges.map((edge) => {
    const index = count.get(end(edge)) ?? 0;
    count.set(end(edge), index + 1);
    return [edge, index];
  }));
}

/** The tracks from `upper` to `lower`: sources with the same targets (and the same kind) share one line. */
function tracksBetween(upper: readonly string[], lower: readonly string[], edges: readonly GraphEdge[], margin: readonly GraphEdge[]): Track[] {
  const byKey = new Map<string, Track>();
  for (const source of upper) {
    for (const dashed of [false, true]) {
      const targets = lower.filter((target) => edges.some((e) =>
        e.source === source && e.target === target && (e.conditional === true) === dashed && !margin.includes(e)));
      if (targets.length === 0) continue;
      const key = `${dashed}:${targets.join("\u0000")}`;
      const track = byKey.get(key) ?? { sources: [], targets, dashed };
      track.sources.push(source);
      byKey.set(key, track);
    }
  }
  return [...byKey.values()];
}
