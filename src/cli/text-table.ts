/**
 * Aligned text tables for the human output of `runs`, `world` and `stats`: a header row, then one row per
 * item, each column as wide as its widest cell.
 * @module
 */

/** How {@link renderTable} lays a table out. */
export interface TableOptions {
  /** Put before every line. @default "" */
  indent?: string;
  /** Per column; "right" suits numbers. @default every column "left" */
  align?: readonly ("left" | "right")[];
}

/** The header and rows as lines, columns two spaces apart, no trailing spaces. */
export function renderTable(header: readonly string[], rows: readonly (readonly (string | number)[])[], options: TableOptions = {}): string[] {
  const all = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, c) => Math.max(...all.map((row) => row[c]?.length ?? 0)));
  return all.map((row) => {
    const cells = widths.map((width, c) => {
      const cell = row[c] ?? "";
      return options.align?.[c] === "right" ? cell.padStart(width) : cell.padEnd(width);
    });
    return `${options.indent ?? ""}${cells.join("  ")}`.trimEnd();
  });
}
