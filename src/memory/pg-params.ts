/**
 * Numbered parameters for a PostgreSQL statement assembled from parts ($1, $2, … in the order added).
 * @module
 */

/** Collects a statement's values; each `add` returns the placeholder naming the value. */
export class PgParams {
  readonly values: unknown[] = [];

  /** Adds a value, returning its placeholder (`$n`), cast when `type` is given (`$n::jsonb`). */
  add(value: unknown, type?: string): string {
    this.values.push(value);
    return type === undefined ? `$${this.values.length}` : `$${this.values.length}::${type}`;
  }
}
