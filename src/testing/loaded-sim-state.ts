/**
 * A system's state read whole into memory for one call, so an effect stays synchronous on a database whose
 * reads are not: its writes are collected and stored in the call's transaction afterwards.
 * @module
 */
import type { SimState } from "./sim-state.js";

/** {@link SimState} over rows loaded at the start of a call (JSON text by key). */
export class LoadedSimState implements SimState {
  private readonly rows: Map<string, string>;
  /** Keys the effect set, with their new JSON text. */
  readonly changed = new Map<string, string>();

  constructor(keys: readonly string[], values: readonly string[]) {
    this.rows = new Map(keys.map((key, i) => [key, values[i] ?? "null"]));
  }

  get<T>(key: string): T | undefined {
    const raw = this.rows.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  set(key: string, value: unknown): void {
    const text = JSON.stringify(value ?? null);
    this.rows.set(key, text);
    this.changed.set(key, text);
  }

  entries<T>(prefix = ""): Array<[string, T]> {
    // Byte order of the UTF-8 keys, as SQLite's ORDER BY key and PostgreSQL's COLLATE "C" sort them.
    const keys = [...this.rows.keys()].filter((key) => key.startsWith(prefix)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return keys.map((key) => [key, JSON.parse(this.rows.get(key) ?? "null") as T]);
  }
}
