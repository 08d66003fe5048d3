/**
 * Row-level access to the `sim_*` tables of a SQLite file. Every method expects to run inside
 * a transaction opened by {@link SqliteSimStorage}.
 * @module
 */
import type { Statement } from "better-sqlite3";
import type { SqliteDatabase } from "../db/index.js";
import type { SimSnapshot, SimSystem } from "./sim-world.js";

/** A simulated system's key/value state, as its tools read and change it. */
export interface SimState {
  /** The stored value, or undefined. */
  get<T>(key: string): T | undefined;
  /** Stores a JSON-serialisable value. */
  set(key: string, value: unknown): void;
  /** Every row whose key starts with `prefix`, ordered by key. */
  entries<T>(prefix?: string): Array<[string, T]>;
}

type Counter = "attempts" | "failures" | "performed";

interface OperationRow {
  operation_id: string;
  result: string;
}

/** Prepared access to the simulated world's tables. */
export class SimStateStore {
  // Every simulated call runs several of these: parsing the SQL each time cost more than the writes.
  private readonly statements = new Map<string, Statement<unknown[]>>();

  constructor(private readonly db: SqliteDatabase) {}

  private prepare(sql: string): Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Writes the system's seed rows once; after a reset, again. */
  ensureSeeded(system: SimSystem): void {
    const inserted = this
      .prepare("INSERT OR IGNORE INTO sim_systems (system, seeded_at) VALUES (?, ?)")
      .run(system.name, Date.now());
    if (inserted.changes === 0) return;
    const put = this.prepare("INSERT OR REPLACE INTO sim_state (system, key, value) VALUES (?, ?, ?)");
    for (const [key, value] of Object.entries(system.seed)) put.run(system.name, key, JSON.stringify(value));
  }

  /** The stored outcome of an earlier call with this idempotency key. */
  findOperation<Result>(tool: string, key: string): { result: Result; operationId: string } | undefined {
    const row = this
      .prepare("SELECT operation_id, result FROM sim_operations WHERE tool = ? AND idempotency_key = ?")
      .get(tool, key) as OperationRow | undefined;
    if (row === undefined) return undefined;
    return { result: JSON.parse(row.result) as Result, operationId: row.operation_id };
  }

  /** `op_<system>_<n>`, numbered per system from 1. */
  nextOperationId(system: string): string {
    const row = this
      .prepare(
        `INSERT INTO sim_sequences (system, value) VALUES (?, 1)
         ON CONFLICT(system) DO UPDATE SET value = value + 1 RETURNING value`,
      )
      .get(system) as { value: number };
    return `op_${system}_${row.value}`;
  }

  recordOperation(op: { tool: string; key: string; system: string; operationId: string; result: unknown }): void {
    this
      .prepare(
        `INSERT INTO sim_operations (tool, idempotency_key, system, operation_id, result, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(op.tool, op.key, op.system, op.operationId, JSON.stringify(op.result ?? null), Date.now());
  }

  /** Adds one to a tool's counter and returns the new value. */
  bump(tool: string, counter: Counter): number {
    const row = this
      .prepare(
        `INSERT INTO sim_calls (tool, ${counter}) VALUES (?, 1)
         ON CONFLICT(tool) DO UPDATE SET ${counter} = ${counter} + 1 RETURNING ${counter} AS value`,
      )
      .get(tool) as { value: number };
    return row.value;
  }

  stateOf(system: SimSystem): SimState {
    const prepare = (sql: string) => this.prepare(sql);
    const name = system.name;
    return {
      get<T>(key: string): T | undefined {
        const row = prepare("SELECT value FROM sim_state WHERE system = ? AND key = ?").get(name, key) as
          | { value: string }
          | undefined;
        return row === undefined ? undefined : (JSON.parse(row.value) as T);
      },
      set(key: string, value: unknown): void {
        prepare("INSERT OR REPLACE INTO sim_state (system, key, value) VALUES (?, ?, ?)").run(name, key, JSON.stringify(value ?? null));
      },
      entries<T>(prefix = ""): Array<[string, T]> {
        const rows = prepare("SELECT key, value FROM sim_state WHERE system = ? AND substr(key, 1, ?) = ? ORDER BY key")
          .all(name, prefix.length, prefix) as Array<{ key: string; value: string }>;
        return rows.map((row) => [row.key, JSON.parse(row.value) as T]);
      },
    };
  }

  snapshot(): SimSnapshot {
    const snapshot: SimSnapshot = { calls: {}, failures: {}, systems: {} };
    const calls = this.prepare("SELECT tool, performed, failures FROM sim_calls ORDER BY tool").all() as Array<{
      tool: string;
      performed: number;
      failures: number;
    }>;
    for (const row of calls) {
      if (row.performed > 0) snapshot.calls[row.tool] = row.performed;
      if (row.failures > 0) snapshot.failures[row.tool] = row.failures;
    }
    const systems = this.prepare("SELECT system FROM sim_systems ORDER BY system").all() as Array<{ system: string }>;
    for (const { system } of systems) snapshot.systems[system] = {};
    const rows = this.prepare("SELECT system, key, value FROM sim_state ORDER BY system, key").all() as Array<{
      system: string;
      key: string;
      value: string;
    }>;
    for (const row of rows) (snapshot.systems[row.system] ??= {})[row.key] = JSON.parse(row.value);
    return snapshot;
  }

  clear(): void {
    for (const table of ["sim_calls", "sim_operations", "sim_state", "sim_systems", "sim_sequences"]) {
      this.db.exec(`DELETE FROM ${table}`);
    }
  }
}
