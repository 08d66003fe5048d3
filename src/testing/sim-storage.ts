/**
 * Where a simulated world keeps its call counts, operations and systems' state: the run database's SQLite file
 * or its PostgreSQL schema. {@link SimWorld} adds the latency and injected faults in front of it.
 * @module
 */
import type { SqliteDatabase } from "../db/index.js";
import type { PostgresDatabase } from "../db/postgres/index.js";
import type { SimCallResult, SimEffectContext, SimSnapshot, SimSystem } from "./sim-world.js";

/** A call as the storage performs it: which system and tool, and the key side effects are deduped on. */
export interface SimStoredCall {
  system: SimSystem;
  tool: string;
  sideEffect: boolean;
  /** Only side effects are deduped on it. */
  idempotencyKey?: string | undefined;
}

/** The simulated world's tables, behind async methods; each method is one atomic unit. */
export interface SimStorage {
  /** The connection the tables live on. */
  readonly db: SqliteDatabase | PostgresDatabase;
  /** False once the connection is closed (a cached world is then opened again). */
  readonly open: boolean;
  /** Counts one attempt at `tool` and, when it is among the first `faults`, a failure; returns the attempt's number. */
  countAttempt(tool: string, faults: number): Promise<number>;
  /**
   * Seeds the system when new, replays a side effect already recorded under its key, else runs `effect` and
   * records its operation id, state changes and count — all or nothing, one call at a time per system.
   */
  perform<Result>(call: SimStoredCall, effect: (ctx: SimEffectContext) => Result): Promise<SimCallResult<Result>>;
  /** Writes the system's seed rows unless it is already seeded. */
  register(system: SimSystem): Promise<void>;
  /** Calls, injected failures and every system's state. */
  snapshot(): Promise<SimSnapshot>;
  /** Forgets every call, operation, fault count and state change. */
  reset(): Promise<void>;
}
