/**
 * Typed reads of single columns from a row the store read back, for the hand-written row decoders: rows
 * agentrt wrote itself come back on every transition, and a zod object parse of ~30 columns cost ~80 µs a
 * row there. Each read still checks the column's type, so a corrupt or foreign row is refused (DB_CORRUPT,
 * naming the table, the row and the column) rather than passed on.
 * @module
 */
import { StorageError } from "../errors.js";

/** A row as the driver returns it: column name to value. */
export type RawRow = Record<string, unknown>;

/** The row as a {@link RawRow}, or DB_CORRUPT when the driver handed back something else. */
export function rawRow(table: string, row: unknown): RawRow {
  if (typeof row !== "object" || row === null || Array.isArray(row)) {
    throw new StorageError("DB_CORRUPT", `unreadable ${table} row: not a row (${row === null ? "null" : typeof row})`, { details: { table } });
  }
  return row as RawRow;
}

/** Reads the columns of one row, naming the row (by `idColumn`) in the error of a column of the wrong type. */
export class RowFields {
  constructor(
    private readonly table: string,
    private readonly row: RawRow,
    private readonly idColumn: string,
  ) {}

  /** A TEXT column. */
  text(column: string): string {
    const value = this.row[column];
    return typeof value === "string" ? value : this.refuse(column, "text");
  }

  /** A nullable TEXT column; `optional` also reads an absent column (added by a later migration) as null. */
  textOrNull(column: string, optional = false): string | null {
    const value = this.row[column];
    if (typeof value === "string" || value === null) return value;
    return optional && value === undefined ? null : this.refuse(column, "text or null");
  }

  /** An INTEGER column (a safe integer, as zod's `int()` required). */
  int(column: string): number {
    const value = this.row[column];
    return Number.isSafeInteger(value) ? (value as number) : this.refuse(column, "an integer");
  }

  /** A nullable INTEGER column; `optional` also reads an absent column as null. */
  intOrNull(column: string, optional = false): number | null {
    const value = this.row[column];
    if (value === null) return null;
    if (Number.isSafeInteger(value)) return value as number;
    return optional && value === undefined ? null : this.refuse(column, "an integer or null");
  }

  /** A REAL column (finite). */
  number(column: string): number {
    const value = this.row[column];
    return Number.isFinite(value) ? (value as number) : this.refuse(column, "a number");
  }

  /** A nullable REAL column. */
  numberOrNull(column: string): number | null {
    const value = this.row[column];
    if (value === null) return null;
    return Number.isFinite(value) ? (value as number) : this.refuse(column, "a number or null");
  }

  /** A TEXT column holding one of `allowed`. */
  oneOf<T extends string>(column: string, allowed: readonly T[]): T {
    const value = this.row[column];
    return typeof value === "string" && (allowed as readonly string[]).includes(value) ? (value as T) : this.refuse(column, `one of ${allowed.join(", ")}`);
  }

  /** DB_CORRUPT naming the table, the row and the column. */
  refuse(column: string, expected: string): never {
    const id = this.row[this.idColumn];
    const value = this.row[column];
    const shown = value === undefined ? "absent" : (JSON.stringify(value) as string | undefined) ?? typeof value;
    throw new StorageError(
      "DB_CORRUPT",
      `unreadable ${this.table} row${typeof id === "string" || typeof id === "number" ? ` ${String(id)}` : ""}: ${column} is ${shown.slice(0, 80)}, expected ${expected}`,
      { details: { table: this.table, column, ...(typeof id === "string" || typeof id === "number" ? { id } : {}) } },
    );
  }
}
