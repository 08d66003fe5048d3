/**
 * The simulated world's tables in a PostgreSQL schema. A side effect is one transaction that takes its system's
 * lock (so side effects on one system run one at a time, as SQLite's write lock makes them) and, in the same send,
 * seeds a new system and reads the dedupe key, the next operation id and the system's whole state; runs the effect
 * in memory and writes its changes, operation and count with COMMIT: two round trips. A read (no side effect)
 * takes no lock: one statement seeds, reads the state and counts the call (taken back if the effect throws).
 * Counts go to a row per tool and connection (sim V2), so calls of one tool do not queue on one row.
 * @module
 */
import { migrateOnce, type PgQueryable, type PgTransactionClient, type PostgresDatabase } from "../db/postgres/index.js";
import { LoadedSimState } from "./loaded-sim-state.js";
import { PG_SIM_SCHEMA } from "./postgres-sim-schema.js";
import type { SimStorage, SimStoredCall } from "./sim-storage.js";
import type { SimCallResult, SimEffectContext, SimSnapshot, SimSystem } from "./sim-world.js";

// Calls on one system run one at a time, as SQLite's write lock makes them. An advisory lock writes nothing, so
// a replay commits without a WAL flush (a row lock would need one).
const LOCK = "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))";

// After the lock, so its snapshot sees every call committed before. A system this statement seeds has exactly its
// seed as state (reset empties every table together), which the caller uses: the statement cannot read its own
// inserts. The sequence moves only for a new side effect.
const SEED_AND_LOOKUP = `
WITH sys AS (
  INSERT INTO sim_systems (system, seeded_at) VALUES ($1, $5) ON CONFLICT (system) DO NOTHING RETURNING system
), seeded AS (
  INSERT INTO sim_state (system, key, value)
  SELECT $1, seed.key, seed.value FROM sys, unnest($6::text[], $7::text[]) AS seed(key, value)
  ON CONFLICT (system, key) DO UPDATE SET value = excluded.value
), found AS (
  SELECT operation_id, result FROM sim_operations WHERE tool = $2 AND idempotency_key = $3
), seq AS (
  INSERT INTO sim_sequences (system, value) SELECT $1, 1 WHERE $4::boolean AND NOT EXISTS (SELECT 1 FROM found)
  ON CONFLICT (system) DO UPDATE SET value = sim_sequences.value + 1 RETURNING value
)
SELECT EXISTS (SELECT 1 FROM sys) AS seeded, (SELECT operation_id FROM found) AS operation_id, (SELECT result FROM found) AS result,
       (SELECT value FROM seq) AS seq,
       ARRAY(SELECT key FROM sim_state WHERE system = $1 ORDER BY key COLLATE "C") AS keys,
       ARRAY(SELECT value FROM sim_state WHERE system = $1 ORDER BY key COLLATE "C") AS values`;

const SEED = `
WITH sys AS (
  INSERT INTO sim_systems (system, seeded_at) VALUES ($1, $2) ON CONFLICT (system) DO NOTHING RETURNING system
)
INSERT INTO sim_state (system, key, value)
SELECT $1, seed.key, seed.value FROM sys, unnest($3::text[], $4::text[]) AS seed(key, value)
ON CONFLICT (system, key) DO UPDATE SET value = excluded.value`;

// A connection's own row of a tool's counts (slot 0 holds attempts and failures).
const SLOT = "1 + pg_backend_pid() % 16";

// A read: no lock, so a system another call seeded after this statement's snapshot was taken reads as not yet
// known (\`known\` false): then nothing is counted and the caller asks again.
const READ = `
WITH sys AS (
  INSERT INTO sim_systems (system, seeded_at) VALUES ($1, $3) ON CONFLICT (system) DO NOTHING RETURNING system
), seeded AS (
  INSERT INTO sim_state (system, key, value)
  SELECT $1, seed.key, seed.value FROM sys, unnest($4::text[], $5::text[]) AS seed(key, value)
  ON CONFLICT (system, key) DO UPDATE SET value = excluded.value
), known AS (
  SELECT EXISTS (SELECT 1 FROM sys) AS seeded, EXISTS (SELECT 1 FROM sim_systems WHERE system = $1) AS visible
), counted AS (
  INSERT INTO sim_calls (tool, slot, performed) SELECT $2, ${SLOT}, 1 FROM known WHERE seeded OR visible
  ON CONFLICT (tool, slot) DO UPDATE SET performed = sim_calls.performed + 1
)
SELECT seeded, seeded OR visible AS known,
       ARRAY(SELECT key FROM sim_state WHERE system = $1 ORDER BY key COLLATE "C") AS keys,
       ARRAY(SELECT value FROM sim_state WHERE system = $1 ORDER BY key COLLATE "C") AS values FROM known`;

// Takes back a read's count when its effect threw (on whichever connection: the snapshot adds the rows up).
const UNCOUNT = `INSERT INTO sim_calls (tool, slot, performed) VALUES ($1, ${SLOT}, -1)
ON CONFLICT (tool, slot) DO UPDATE SET performed = sim_calls.performed - 1`;

const RECORD = `
WITH state AS (
  INSERT INTO sim_state (system, key, value) SELECT $1, changed.key, changed.value FROM unnest($2::text[], $3::text[]) AS changed(key, value)
  ON CONFLICT (system, key) DO UPDATE SET value = excluded.value
), op AS (
  INSERT INTO sim_operations (tool, idempotency_key, system, operation_id, result, created_at)
  SELECT $4, $5, $1, $6, $7, $8 WHERE $6::text IS NOT NULL
)
INSERT INTO sim_calls (tool, slot, performed) VALUES ($4, ${SLOT}, 1) ON CONFLICT (tool, slot) DO UPDATE SET performed = sim_calls.performed + 1`;

const COUNT_ATTEMPT = `
INSERT INTO sim_calls (tool, attempts, failures) VALUES ($1, 1, CASE WHEN $2::integer >= 1 THEN 1 ELSE 0 END)
ON CONFLICT (tool, slot) DO UPDATE SET attempts = sim_calls.attempts + 1,
  failures = sim_calls.failures + CASE WHEN sim_calls.attempts + 1 <= $2::integer THEN 1 ELSE 0 END
RETURNING attempts`;

const SNAPSHOT = `
SELECT (SELECT coalesce(json_agg(json_build_array(tool, performed, failures) ORDER BY tool COLLATE "C"), '[]')
          FROM (SELECT tool, sum(performed)::int AS performed, sum(failures)::int AS failures FROM sim_calls GROUP BY tool) t) AS calls,
       (SELECT coalesce(json_agg(system ORDER BY system COLLATE "C"), '[]') FROM sim_systems) AS systems,
       (SELECT coalesce(json_agg(json_build_array(system, key, value) ORDER BY system COLLATE "C", key COLLATE "C"), '[]') FROM sim_state) AS state`;

const RESET = `
WITH calls AS (DELETE FROM sim_calls), operations AS (DELETE FROM sim_operations), state AS (DELETE FROM sim_state),
     sequences AS (DELETE FROM sim_sequences)
DELETE FROM sim_systems`;

interface ReadRow {
  seeded: boolean;
  known: boolean;
  keys: string[];
  values: string[];
}

interface LookupRow {
  seeded: boolean;
  operation_id: string | null;
  result: string | null;
  seq: number | null;
  keys: string[];
  values: string[];
}

/** {@link SimStorage} on a PostgreSQL schema; its tables are created or migrated at the first call. */
export class PostgresSimStorage implements SimStorage {
  readonly #migrate: () => Promise<void>;

  constructor(readonly db: PostgresDatabase) {
    this.#migrate = migrateOnce(db, PG_SIM_SCHEMA);
  }

  /** Always true: a pool reconnects, and a closed one fails the call instead. */
  get open(): boolean {
    return true;
  }

  async countAttempt(tool: string, faults: number): Promise<number> {
    await this.migrated();
    const result = await this.db.query<{ attempts: number }>(COUNT_ATTEMPT, [tool, faults]);
    return result.rows[0]?.attempts ?? 0;
  }

  async perform<Result>(call: SimStoredCall, effect: (ctx: SimEffectContext) => Result): Promise<SimCallResult<Result>> {
    await this.migrated();
    if (!call.sideEffect) {
      const read = await this.read(call, effect);
      if (read !== undefined) return read;
    }
    const system = call.system.name;
    const key = call.sideEffect ? call.idempotencyKey : undefined;
    const [seedKeys, seedValues] = seedRows(call.system);
    return this.db.transaction(async (client): Promise<SimCallResult<Result>> => {
      // The lock goes in the same send as BEGIN and the lookup; the record with COMMIT.
      this.holdLock(client, system);
      const found = await client.query<LookupRow>(SEED_AND_LOOKUP, [system, call.tool, key ?? null, call.sideEffect, Date.now(), seedKeys, seedValues]);
      const row = found.rows[0];
      if (row === undefined) throw new Error("the sim lookup returned no row");
      if (row.operation_id !== null) {
        return { result: JSON.parse(row.result ?? "null") as Result, operationId: row.operation_id, replayed: true };
      }
      const operationId = call.sideEffect ? `op_${system}_${String(row.seq)}` : undefined;
      const state = row.seeded ? new LoadedSimState(seedKeys, seedValues) : new LoadedSimState(row.keys, row.values);
      const result = effect({ state, operationId });
      const values = [
        system, [...state.changed.keys()], [...state.changed.values()], call.tool, key ?? operationId ?? null,
        operationId ?? null, JSON.stringify(result ?? null), Date.now(),
      ];
      if (!client.sendWithNext({ text: RECORD, values }, (error) => error)) await client.query(RECORD, values);
      return { result, operationId, replayed: false };
    });
  }

  /** A call without a side effect in one statement; undefined when its effect changed state (then it takes the lock). */
  private async read<Result>(call: SimStoredCall, effect: (ctx: SimEffectContext) => Result): Promise<SimCallResult<Result> | undefined> {
    const [seedKeys, seedValues] = seedRows(call.system);
    let row: ReadRow | undefined;
    // Asked again only while another call's seeding of the system commits under this one.
    for (let round = 0; round < 5 && row?.known !== true; round++) {
      row = (await this.db.query<ReadRow>(READ, [call.system.name, call.tool, Date.now(), seedKeys, seedValues])).rows[0];
    }
    if (row === undefined || !row.known) return undefined;
    const state = row.seeded ? new LoadedSimState(seedKeys, seedValues) : new LoadedSimState(row.keys, row.values);
    let result: Result;
    try {
      result = effect({ state, operationId: undefined });
    } catch (error) {
      await this.db.query(UNCOUNT, [call.tool]);
      throw error;
    }
    if (state.changed.size === 0) return { result, operationId: undefined, replayed: false };
    await this.db.query(UNCOUNT, [call.tool]);
    return undefined;
  }

  async register(system: SimSystem): Promise<void> {
    await this.migrated();
    await this.db.transaction(async (client) => {
      await this.lock(client, system.name);
      await client.query(SEED, [system.name, Date.now(), ...seedRows(system)]);
    });
  }

  async snapshot(): Promise<SimSnapshot> {
    await this.migrated();
    return readPostgresSimSnapshot(this.db);
  }

  async reset(): Promise<void> {
    await this.migrated();
    await this.db.query(RESET);
  }

  /** Holds `system`'s lock until the transaction ends. */
  private async lock(client: PgQueryable, system: string): Promise<void> {
    await client.query(LOCK, [`agentrt_sim:${this.db.schema}`, system]);
  }

  /** {@link lock}, sent with the transaction's next statement. */
  private holdLock(client: PgTransactionClient, system: string): void {
    const values = [`agentrt_sim:${this.db.schema}`, system];
    if (!client.sendWithNext({ text: LOCK, values }, (error) => error)) throw new Error("the sim lock statement could not be inlined");
  }

  private migrated(): Promise<unknown> {
    return this.#migrate();
  }
}

/** The world's snapshot from `sim_*` tables that exist, in one statement; migrates nothing (for readers too). */
export async function readPostgresSimSnapshot(db: PgQueryable): Promise<SimSnapshot> {
  const result = await db.query<{ calls: Array<[string, number, number]>; systems: string[]; state: Array<[string, string, string]> }>(SNAPSHOT);
  const row = result.rows[0];
  const snapshot: SimSnapshot = { calls: {}, failures: {}, systems: {} };
  for (const [tool, performed, failures] of row?.calls ?? []) {
    if (performed > 0) snapshot.calls[tool] = performed;
    if (failures > 0) snapshot.failures[tool] = failures;
  }
  for (const system of row?.systems ?? []) snapshot.systems[system] = {};
  for (const [system, key, value] of row?.state ?? []) (snapshot.systems[system] ??= {})[key] = JSON.parse(value);
  return snapshot;
}

/** A system's seed as parallel key and JSON-text arrays. */
function seedRows(system: SimSystem): [string[], string[]] {
  const rows = Object.entries(system.seed);
  return [rows.map(([key]) => key), rows.map(([, value]) => JSON.stringify(value ?? null))];
}
