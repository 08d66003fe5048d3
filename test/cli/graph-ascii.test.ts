// The terminal drawing of a graph: ranks top to bottom, parallel branches side by side, loops in the margin.
import { describe, expect, it } from "vitest";
import { drawGraphAscii } from "../../src/cli/graph-ascii.js";

const boxed = (node: string): RegExp => new RegExp(`│ +${node} +│`);
const lineOf = (drawing: string, node: string): number => drawing.split("\n").findIndex((l) => boxed(node).test(l));

describe("drawGraphAscii", () => {
  it("draws a declared DAG with its parallel branches on one row", () => {
    const drawing = drawGraphAscii({
      nodes: ["__start__", "get_order", "check_inventory", "check_logistics", "assess", "answer", "__end__"],
      edges: [
        { source: "__start__", target: "get_order" },
        { source: "get_order", target: "check_inventory" },
        { source: "get_order", target: "check_logistics" },
        { source: "check_inventory", target: "assess" },
        { source: "check_logistics", target: "assess" },
        { source: "assess", target: "answer" },
        { source: "answer", target: "__end__" },
      ],
    });
    const rows = ["__start__", "get_order", "check_inventory", "assess", "answer", "__end__"].map((n) => lineOf(drawing, n));
    expect(rows.every((row) => row >= 0)).toBe(true);
    expect([...rows].sort((a, b) => a - b)).toEqual(rows);
    expect(lineOf(drawing, "check_logistics")).toBe(lineOf(drawing, "check_inventory"));
    // One fan-out (get_order splits to two arrows), one fan-in (two lines join into assess's one arrow).
    expect(drawing.match(/▼/g)).toHaveLength(6);
    expect(drawing).toMatch(/┴/);
    expect(drawing).toMatch(/┬/);
    expect(drawing).not.toContain("conditional");
    expect(drawing.split("\n").every((l) => l === l.trimEnd())).toBe(true);
  });

  it("routes a loop back up the right margin into its target", () => {
    const drawing = drawGraphAscii({
      nodes: ["__start__", "model", "tools", "__end__"],
      edges: [
        { source: "__start__", target: "model" },
        { source: "tools", target: "model" },
        { source: "model", target: "tools", conditional: true },
        { source: "model", target: "__end__", conditional: true },
      ],
    });
    expect(lineOf(drawing, "tools")).toBe(lineOf(drawing, "__end__"));
    expect(lineOf(drawing, "model")).toBeLessThan(lineOf(drawing, "tools"));
    const lines = drawing.split("\n");
    // The margin column: a vertical line right of every box, from below tools up to above model.
    const boxRight = Math.max(...["__start__", "model", "tools", "__end__"].map((n) => {
      const line = lines[lineOf(drawing, n)]!;
      const match = boxed(n).exec(line)!;
      return match.index + match[0].length;
    }));
    const margin = lines.map((l) => l.slice(boxRight + 1)).filter((tail) => /[│┐┘]/.test(tail));
    expect(margin.length).toBeGreaterThanOrEqual(4);
    expect(drawing.match(/▼/g)).toHaveLength(4);
    expect(drawing).toMatch(/[┆╌]/);
    expect(drawing).toContain("conditional");
  });

  it("draws a self-loop and a node no edge reaches", () => {
    const drawing = drawGraphAscii({
      nodes: ["__start__", "ask", "model", "orphan"],
      edges: [
        { source: "__start__", target: "ask" },
        { source: "ask", target: "ask", conditional: true },
        { source: "ask", target: "model", conditional: true },
      ],
    });
    for (const node of ["__start__", "ask", "model", "orphan"]) expect(lineOf(drawing, node)).toBeGreaterThanOrEqual(0);
    expect(drawing.match(/▼/g)).toHaveLength(3);
  });
});
