/**
 * A grid of characters to draw lines on: each cell remembers which way lines leave it, so where lines meet
 * the right box-drawing junction is chosen (┬ ┴ ├ ┤ ┼ and the corners). Lines drawn only dashed (conditional
 * edges) show as ┆ and ╌ where they run straight.
 * @module
 */

const UP = 1;
const DOWN = 2;
const LEFT = 4;
const RIGHT = 8;

const GLYPHS: Record<number, string> = {
  [UP]: "│", [DOWN]: "│", [UP | DOWN]: "│", [LEFT]: "─", [RIGHT]: "─", [LEFT | RIGHT]: "─",
  [DOWN | RIGHT]: "┌", [DOWN | LEFT]: "┐", [UP | RIGHT]: "└", [UP | LEFT]: "┘",
  [UP | DOWN | RIGHT]: "├", [UP | DOWN | LEFT]: "┤", [LEFT | RIGHT | DOWN]: "┬", [LEFT | RIGHT | UP]: "┴",
  [UP | DOWN | LEFT | RIGHT]: "┼",
};

interface LineCell {
  ways: number;
  solid: boolean;
}

/** Characters and lines on a grid that grows as it is drawn on; rendered with trailing spaces trimmed. */
export class TextCanvas {
  private readonly text = new Map<string, string>();
  private readonly lines = new Map<string, LineCell>();
  private height = 0;

  /** Writes `value` from column x of row y; written characters hide lines under them. */
  write(x: number, y: number, value: string): void {
    [...value].forEach((ch, i) => this.text.set(`${y},${x + i}`, ch));
    this.height = Math.max(this.height, y + 1);
  }

  /** A horizontal line on row y between columns x1 and x2 (either order). */
  horizontal(y: number, x1: number, x2: number, dashed = false): void {
    const [from, to] = x1 <= x2 ? [x1, x2] : [x2, x1];
    for (let x = from; x <= to; x++) this.mark(x, y, (x > from ? LEFT : 0) | (x < to ? RIGHT : 0), dashed);
  }

  /** A vertical line in column x between rows y1 and y2 (either order). */
  vertical(x: number, y1: number, y2: number, dashed = false): void {
    const [from, to] = y1 <= y2 ? [y1, y2] : [y2, y1];
    for (let y = from; y <= to; y++) this.mark(x, y, (y > from ? UP : 0) | (y < to ? DOWN : 0), dashed);
  }

  /** The grid as text, one string per row. */
  render(): string[] {
    const rows: string[][] = Array.from({ length: this.height }, () => []);
    for (const [key, cell] of this.lines) {
      const [y, x] = key.split(",").map(Number) as [number, number];
      if (cell.ways !== 0) rows[y]![x] = glyph(cell);
    }
    for (const [key, ch] of this.text) {
      const [y, x] = key.split(",").map(Number) as [number, number];
      rows[y]![x] = ch;
    }
    return rows.map((row) => Array.from(row, (ch) => ch ?? " ").join("").trimEnd());
  }

  private mark(x: number, y: number, ways: number, dashed: boolean): void {
    const key = `${y},${x}`;
    const cell = this.lines.get(key) ?? { ways: 0, solid: false };
    this.lines.set(key, { ways: cell.ways | ways, solid: cell.solid || !dashed });
    this.height = Math.max(this.height, y + 1);
  }
}

function glyph(cell: LineCell): string {
  if (!cell.solid && (cell.ways & (LEFT | RIGHT)) === 0) return "┆";
  if (!cell.solid && (cell.ways & (UP | DOWN)) === 0) return "╌";
  return GLYPHS[cell.ways] ?? "┼";
}
