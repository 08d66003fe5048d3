/**
 * {@link WorkerLiveness} on PostgreSQL. A worker holds a session advisory lock, keyed by its id, on a connection of
 * its own, and records its id in `run_workers` (lock first, then the row: a row seen without its lock is a worker
 * whose session ended). PostgreSQL releases the lock the moment the worker's process dies and its socket closes
 * (SIGKILL, OOM, a crash), so another worker, on its next look, finds the row without a lock, deletes it, and
 * recovers that worker's leased runs as expired leases (the claim sweep's own rules: RETRYING with LEASE_LOST, a
 * status change every idle worker hears; the next claim bumps the fencing token). What the lock cannot tell —
 * a host cut off while its connection stays open on the server's side, a process frozen — the lease expiry still
 * catches. Only workers that registered are ever judged dead: a lease held under any other owner (a runtime's
 * own `rt_…` claims) ends by expiry alone.
 * @module
 */
import pg from "pg";
import { migrateOnce, type PgModuleSchema, type PostgresDatabase } from "../db/postgres/index.js";
import type { RunStore } from "./run-store.js";
import type { WorkerLiveness } from "./worker-liveness.js";

// Frozen literal SQL: a later change is a new migration. Its own module, so it versions apart from the runs tables.
const V1 = "CREATE TABLE run_workers (worker_id TEXT PRIMARY KEY, started_at BIGINT NOT NULL)";

/** The `run_workers` module's PostgreSQL schema: the workers that hold a liveness lock, or held one until they died. */
export const RUN_WORKERS_PG_SCHEMA: PgModuleSchema = { module: "run_workers", tables: ["run_workers"], migrations: [V1] };

/** First wait before a lost liveness connection is opened again; doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5000;

// $1 the schema's lock class (see lockClass), $2 now. A dead worker's row goes, and its live leases expire now.
const RECOVER_DEAD = `WITH dead AS (
  DELETE FROM run_workers w WHERE NOT EXISTS (
    SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND l.classid::bigint = ($1::int::bigint & 4294967295) AND l.objid::bigint = (hashtext(w.worker_id)::bigint & 4294967295))
  RETURNING worker_id)
UPDATE runs SET lease_expires_at = $2 WHERE lease_owner IN (SELECT worker_id FROM dead)
  AND status IN ('RUNNING', 'RETRYING') AND lease_expires_at > $2
RETURNING run_id`;

/**
 * The first key of every liveness lock of one schema (the second is `hashtext(worker_id)`): a 32-bit FNV-1a hash of
 * the schema's name, so two schemas' workers never read each other's locks as their own.
 */
export function lockClass(schema: string): number {
  let hash = 0x811c9dc5;
  for (const char of `agentrt_run_workers:${schema}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return hash | 0;
}

/** Worker liveness in one PostgreSQL schema; `runs` is the same schema's run store (its sweep recovers the runs). */
export class PostgresWorkerLiveness implements WorkerLiveness {
  readonly #db: PostgresDatabase;
  readonly #runs: RunStore;
  readonly #migrate: () => Promise<void>;
  readonly #class: number;

  constructor(db: PostgresDatabase, runs: RunStore) {
    this.#db = db;
    this.#runs = runs;
    this.#migrate = migrateOnce(db, RUN_WORKERS_PG_SCHEMA);
    this.#class = lockClass(db.schema);
  }

  async hold(workerId: string): Promise<(() => Promise<void>) | undefined> {
    const holder = new LivenessHolder(this.#db, this.#class, workerId, () => this.recoverDead());
    return (await holder.start()) ? () => holder.release() : undefined;
  }

  async recoverDead(): Promise<number> {
    await this.#migrate();
    const taken = await this.#db.query(RECOVER_DEAD, [this.#class, this.#runs.clock()]);
    // Their leases now read as expired: the sweep moves them (with their events, heard by every idle worker).
    if ((taken.rowCount ?? 0) > 0) await this.#runs.sweep();
    return taken.rowCount ?? 0;
  }
}

/** One worker's liveness connection: held until released, opened again (and the lock taken again) when it drops. */
class LivenessHolder {
  readonly #db: PostgresDatabase;
  readonly #class: number;
  readonly #workerId: string;
  readonly #recoverDead: () => Promise<number>;
  #client: pg.Client | undefined;
  #released = false;
  #retryMs = FIRST_RETRY_MS;
  #retry: NodeJS.Timeout | undefined;

  constructor(db: PostgresDatabase, lockKeyClass: number, workerId: string, recoverDead: () => Promise<number>) {
    this.#db = db;
    this.#class = lockKeyClass;
    this.#workerId = workerId;
    this.#recoverDead = recoverDead;
  }

  /** True once the lock is held and the row written; false (and no retry) when another session holds this id. */
  async start(): Promise<boolean> {
    try {
      // A predecessor under the same id (a restarted worker) died holding runs: they are recovered before its id is live again.
      await this.#recoverDead();
      return await this.#connect();
    } catch {
      return false;
    }
  }

  async release(): Promise<void> {
    this.#released = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    if (client === undefined) return;
    // A stopped worker leases nothing: its row goes with its lock.
    await client.query("DELETE FROM run_workers WHERE worker_id = $1", [this.#workerId]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }

  async #connect(): Promise<boolean> {
    const { options } = this.#db.pool;
    const client = new pg.Client({
      connectionString: options.connectionString, options: options.options, connectionTimeoutMillis: options.connectionTimeoutMillis,
      keepAlive: true, application_name: "agentrt_liveness",
    });
    // A dropped connection must not end the process: it is opened again, and the lock taken again.
    client.on("error", () => undefined);
    let held = false;
    try {
      await client.connect();
      const locked = await client.query<{ held: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS held", [this.#class, this.#workerId]);
      if (locked.rows[0]?.held === true && !this.#released) {
        await client.query(
          "INSERT INTO run_workers (worker_id, started_at) VALUES ($1, $2) ON CONFLICT (worker_id) DO UPDATE SET started_at = excluded.started_at",
          [this.#workerId, Date.now()],
        );
        // Released while the row was written: hold nothing (the end below drops the lock; the row is the sweep's).
        held = !this.#released;
      }
    } finally {
      // A connection that holds nothing must not keep the process alive.
      if (!held) await client.end().catch(() => undefined);
    }
    if (!held) return false;
    this.#client = client;
    this.#retryMs = FIRST_RETRY_MS;
    client.once("end", () => this.#lost(client));
    return true;
  }

  /** The connection dropped while the worker lives (a server restart): others may take its runs over meanwhile (fenced). */
  #lost(client: pg.Client): void {
    if (this.#client !== client || this.#released) return;
    this.#client = undefined;
    const again = () => {
      this.#retry = undefined;
      this.#connect().then(
        (held) => void (held || this.#released ? undefined : this.#later(again)),
        () => this.#later(again),
      );
    };
    this.#later(again);
  }

  #later(again: () => void): void {
    if (this.#released) return;
    this.#retry = setTimeout(again, this.#retryMs);
    this.#retry.unref();
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
  }
}
