/**
 * A deterministic simulated outside world kept in the run database (SQLite or PostgreSQL), so tests
 * and benchmarks can count side effects ("how many rollbacks really happened?")
 * across processes, and inject latency and faults through the environment.
 * @module
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SqliteDatabase } from "../db/index.js";
import { PostgresDatabase } from "../db/postgres/index.js";
import { abortError, SimulatedFaultError } from "./sim-fault.js";
import { simFaults, simLatencyMs } from "./sim-env.js";
import { PostgresSimStorage } from "./postgres-sim-storage.js";
import type { SimState } from "./sim-state.js";
import type { SimStorage } from "./sim-storage.js";
import { SqliteSimStorage } from "./sqlite-sim-storage.js";

/** One simulated external system: a name and the state it starts from. */
export interface SimSystem {
  /** Stable name, used in operation ids (`op_<name>_<n>`) and in snapshots. */
  readonly name: string;
  /** Initial state rows, written the first time the system is used. */
  readonly seed: Readonly<Record<string, unknown>>;
}

/** One call into a simulated system. */
export interface SimCall {
  system: SimSystem;
  /** Tool name; calls and faults are counted per tool. */
  tool: string;
  /** Whether the call changes the system; only these are deduped and get operation ids. */
  sideEffect: boolean;
  /** Key the system dedupes side effects on. @default undefined (no dedupe) */
  idempotencyKey?: string;
  /** Aborts the simulated latency; an aborted call is never performed. @default undefined */
  signal?: AbortSignal;
}

/** What the effect of a call sees: the system's state and, for side effects, the new operation id. */
export interface SimEffectContext {
  state: SimState;
  operationId: string | undefined;
}

/** Outcome of {@link SimWorld.perform}. */
export interface SimCallResult<Result> {
  result: Result;
  /** `op_<system>_<n>` for side effects, undefined for reads. */
  operationId: string | undefined;
  /** True when the idempotency key had been seen: nothing was performed or counted. */
  replayed: boolean;
}

/** The world as `agentrt world --json` prints it. */
export interface SimSnapshot {
  /** Per tool, how many calls the systems actually performed (replays and faults excluded). */
  calls: Record<string, number>;
  /** Per tool, how many injected faults fired. */
  failures: Record<string, number>;
  /** Per system, its state rows. */
  systems: Record<string, Record<string, unknown>>;
}

/** Options of {@link SimWorld.open}. */
export interface SimWorldOptions {
  /** Where `AGENTRT_SIM_LATENCY_MS` and `AGENTRT_SIM_FAULTS` are read, at every call. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** The simulated world over one database connection: SQLite's or PostgreSQL's. */
export class SimWorld {
  readonly db: SqliteDatabase | PostgresDatabase;
  private readonly env: NodeJS.ProcessEnv;
  private readonly storage: SimStorage;

  private constructor(storage: SimStorage, options: SimWorldOptions) {
    this.db = storage.db;
    this.env = options.env ?? process.env;
    this.storage = storage;
  }

  /**
   * The world on `db`. A SQLite file's `sim_*` tables are created or migrated now; a PostgreSQL schema's at
   * the world's first call, so opening stays synchronous on both.
   */
  static open(db: SqliteDatabase | PostgresDatabase, options: SimWorldOptions = {}): SimWorld {
    return new SimWorld(db instanceof PostgresDatabase ? new PostgresSimStorage(db) : SqliteSimStorage.open(db), options);
  }

  /** False once its connection is closed. */
  get open(): boolean {
    return this.storage.open;
  }

  /**
   * Performs one call: latency (abortable) → injected fault → idempotency dedupe → effect, counted and
   * recorded atomically (one transaction, one call at a time per system) so concurrent processes never
   * perform the same keyed side effect twice.
   */
  async perform<Result>(call: SimCall, effect: (ctx: SimEffectContext) => Result): Promise<SimCallResult<Result>> {
    await this.delay(call.signal, call.tool);
    await this.injectFault(call.tool);
    if (call.signal?.aborted === true) throw abortError(call.signal, call.tool);
    return this.storage.perform({ system: call.system, tool: call.tool, sideEffect: call.sideEffect, idempotencyKey: call.idempotencyKey }, effect);
  }

  /** Writes a system's seed now (normally done lazily at its first call), so snapshots show it. */
  register(system: SimSystem): Promise<void> {
    return this.storage.register(system);
  }

  /** Calls, injected failures and every system's state. */
  snapshot(): Promise<SimSnapshot> {
    return this.storage.snapshot();
  }

  /** Forgets every call, operation, fault count and state change; systems re-seed at their next call. */
  reset(): Promise<void> {
    return this.storage.reset();
  }

  private async delay(signal: AbortSignal | undefined, tool: string): Promise<void> {
    if (signal?.aborted === true) throw abortError(signal, tool);
    const ms = simLatencyMs(this.env);
    if (ms <= 0) return;
    try {
      await sleep(ms, undefined, signal === undefined ? {} : { signal });
    } catch (error) {
      // The only way sleep rejects is through the signal.
      throw signal === undefined ? error : abortError(signal, tool);
    }
  }

  /** Counts the attempt in the database, so "the first N calls fail" holds across processes. */
  private async injectFault(tool: string): Promise<void> {
    const faults = simFaults(this.env).get(tool) ?? 0;
    if (faults === 0) return;
    const attempt = await this.storage.countAttempt(tool, faults);
    if (attempt <= faults) throw new SimulatedFaultError({ tool, attempt, faults });
  }
}
