/**
 * What agentrt's own code and tests may reach underneath a {@link Runtime}: its connection and its run store.
 * Not part of the public API (src/index.ts does not export it): users go through the Runtime's operations.
 * @module
 */
import { isSqliteDatabase, type RunDatabase, type SqliteDatabase } from "../db/index.js";
import type { RunStore } from "../runs/index.js";
import type { Runtime } from "./runtime.js";
import type { RuntimeStorage } from "./storage/runtime-storage.js";

/** The parts of a Runtime that only agentrt itself (and its tests) may use. */
export interface RuntimeInternals {
  /** The runtime's database (runs, checkpoints, traces, memory, the server's tables). */
  readonly db: RunDatabase;
  /** The run store on that database. */
  readonly runs: RunStore;
  /** Every store of the runtime, and its backend. */
  readonly storage: RuntimeStorage;
  /** True while the run executes in this process: its rest (with its final values) is about to be emitted. */
  executesHere(runId: string): boolean;
}

const registry = new WeakMap<Runtime, RuntimeInternals>();

/** Called once by the Runtime's constructor. */
export function registerInternals(runtime: Runtime, internals: RuntimeInternals): void {
  registry.set(runtime, internals);
}

/** The connection and run store under `runtime`; for agentrt's own code and tests only. */
export function runtimeInternals(runtime: Runtime): RuntimeInternals {
  const internals = registry.get(runtime);
  if (internals === undefined) throw new Error("not a Runtime opened by Runtime.open");
  return internals;
}

/** The SQLite connection under `runtime`; for agentrt's own SQLite-only code and tests (throws on PostgreSQL). */
export function runtimeSqlite(runtime: Runtime): SqliteDatabase {
  const { db } = runtimeInternals(runtime);
  if (!isSqliteDatabase(db)) throw new Error("this runtime runs on PostgreSQL, not SQLite");
  return db;
}
