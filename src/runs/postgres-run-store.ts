/**
 * The run store on PostgreSQL: the {@link RunStore} interface over one schema (RUNS_PG_SCHEMA), with SQLite's
 * behaviour (same errors, events, caps and sweeps). Every method is one atomic unit: a single statement where it
 * can be (a status change, a fenced write, a create), else one transaction (claims, sweeps). The tables are
 * migrated lazily on first use, so `open` is synchronous; `ready()` migrates eagerly.
 * @module
 */
import { migrateOnce, readPostgresVersion, type PgTransactionClient, type PostgresDatabase } from "../db/postgres/index.js";
import type { StoreTransaction } from "../db/index.js";
import { StorageError, SystemError } from "../errors.js";
import { assertFence } from "./fence.js";
import type { RunStatus } from "./lifecycle.js";
import { newRunValues } from "./new-run.js";
import { EARLIER_ON_THREAD } from "./claim-rules.js";
import { claimNextIn, claimRunIn, overdueWhere, sweepIn } from "./postgres-claims.js";
import { addUsageFenced, assertHeldOn, holdFence, setBackoffFenced } from "./postgres-fenced.js";
import { HeartbeatBatch } from "./postgres-heartbeats.js";
import { findRun, getRun, insertRun, pgRows } from "./postgres-run-rows.js";
import type { IdempotentRun } from "./idempotency.js";
import { claimKeyPg, findIdempotentPg } from "./postgres-idempotency.js";
import { RUNS_PG_SCHEMA } from "./postgres-schema.js";
import { cancelRun, expireWaitIfDueRun, resumeRun, transitionRun, type ResumeOptions } from "./postgres-transitions.js";
import { rowToEvent, rowToRun, type RunEvent, type RunRecord, type RunUsage } from "./run-record.js";
import type {
  CancelOptions, ClaimRequest, ClaimRunRequest, CreateRunInput, LeaseState, RunFilter, RunStore, RunStoreOptions,
} from "./run-store.js";
import type { TransitionOptions } from "./transition-write.js";

const PENDING_WORK = `SELECT EXISTS (SELECT 1 FROM runs WHERE status = 'RUNNING')
  OR EXISTS (SELECT 1 FROM runs r WHERE r.status IN ('QUEUED', 'RETRYING') AND NOT ${EARLIER_ON_THREAD}) AS pending`;

const LATEST_OF_THREADS = `SELECT r.* FROM unnest($1::text[]) AS t(thread_id)
  CROSS JOIN LATERAL (SELECT * FROM runs WHERE thread_id = t.thread_id ORDER BY created_at DESC, run_id DESC LIMIT 1) r`;

// Rows written by a transaction the snapshot $1 did not see: committed since, or still running then. The index
// range starts at that snapshot's xmin (every older transaction had ended), so only recent writes are visited.
const CHANGED_SINCE = `SELECT pg_current_snapshot()::text AS snapshot, EXISTS (SELECT 1 FROM runs
  WHERE changed_xid >= pg_snapshot_xmin($1::pg_snapshot) AND NOT pg_visible_in_snapshot(changed_xid, $1::pg_snapshot)) AS moved`;

/** Durable run records and their event log in one PostgreSQL schema. */
export class PostgresRunStore implements RunStore {
  readonly db: PostgresDatabase;
  readonly clock: () => number;
  readonly #migrate: () => Promise<void>;
  /** The snapshot of the last look for changes, and how many looks found some. */
  #seen: { snapshot: string | undefined; count: number } = { snapshot: undefined, count: 0 };
  #looked: Promise<unknown> = Promise.resolve();
  /** This process's heartbeats, one statement per batch. */
  readonly #heartbeats: HeartbeatBatch;

  private constructor(db: PostgresDatabase, clock: () => number) {
    this.db = db;
    this.clock = clock;
    this.#migrate = migrateOnce(db, RUNS_PG_SCHEMA);
    this.#heartbeats = new HeartbeatBatch(db, clock);
  }

  /**
   * A store over `db`'s schema; the runs tables are migrated on first use (or by {@link ready}).
   * @example const store = PostgresRunStore.open(new PostgresDatabase(target)); await store.ready();
   */
  static open(db: PostgresDatabase, options: RunStoreOptions = {}): PostgresRunStore {
    return new PostgresRunStore(db, options.clock ?? Date.now);
  }

  /** Migrates the runs tables once (DB_SCHEMA_TOO_NEW when a newer agentrt wrote them); every method awaits it. */
  ready(): Promise<void> {
    return this.#migrate();
  }

  async create(input: CreateRunInput): Promise<RunRecord> {
    const values = newRunValues(input, this.clock());
    await this.ready();
    const { idempotency } = input;
    if (idempotency === undefined) return insertRun(this.db, values);
    return this.db.transaction(async (client) => {
      await claimKeyPg(client, values[3], idempotency, values[0], values[11]);
      return insertRun(client, values);
    });
  }

  async findIdempotent(userId: string, key: string): Promise<IdempotentRun | undefined> {
    await this.ready();
    return findIdempotentPg(this.db, userId, key, this.clock());
  }

  async createAndClaim(input: CreateRunInput, claim: ClaimRequest): Promise<{ run: RunRecord; claimed: RunRecord | undefined }> {
    const values = newRunValues(input, this.clock());
    await this.ready();
    return this.db.transaction(async (client) => {
      if (input.idempotency !== undefined) await claimKeyPg(client, values[3], input.idempotency, values[0], values[11]);
      const run = await insertRun(client, values);
      return { run, claimed: await claimRunIn(client, run.runId, claim, this.clock()) };
    });
  }

  async get(runId: string): Promise<RunRecord> {
    await this.ready();
    return getRun(this.db, runId);
  }

  async find(runId: string): Promise<RunRecord | undefined> {
    await this.ready();
    return findRun(this.db, runId);
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    await this.ready();
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.status !== undefined) {
      args.push(typeof filter.status === "string" ? [filter.status] : [...filter.status]);
      where.push(`status = ANY($${args.length}::text[])`);
    }
    for (const [column, value] of [["user_id", filter.userId], ["graph_id", filter.graphId], ["thread_id", filter.threadId]] as const) {
      if (value !== undefined) {
        args.push(value);
        where.push(`${column} = $${args.length}`);
      }
    }
    const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
    const order = filter.order === "newest" ? "created_at DESC, run_id DESC" : "priority DESC, created_at, run_id";
    args.push(filter.limit ?? 1000);
    return (await pgRows(this.db, `SELECT * FROM runs ${clause} ORDER BY ${order} LIMIT $${args.length}`, args)).map(rowToRun);
  }

  async latestOfThreads(threadIds: readonly string[]): Promise<Map<string, RunRecord>> {
    await this.ready();
    const runs = (await pgRows(this.db, LATEST_OF_THREADS, [[...threadIds]])).map(rowToRun);
    return new Map(runs.map((run) => [run.threadId, run]));
  }

  async events(runId: string): Promise<RunEvent[]> {
    await this.ready();
    return (await pgRows(this.db, "SELECT * FROM run_events WHERE run_id = $1 ORDER BY event_id", [runId])).map(rowToEvent);
  }

  async eventsAfter(afterEventId: number, options: { runId?: string; limit?: number } = {}): Promise<RunEvent[]> {
    await this.ready();
    const limit = options.limit ?? 1000;
    const rows =
      options.runId === undefined
        ? await pgRows(this.db, "SELECT * FROM run_events WHERE event_id > $1 ORDER BY event_id LIMIT $2", [afterEventId, limit])
        : await pgRows(this.db, "SELECT * FROM run_events WHERE run_id = $3 AND event_id > $1 ORDER BY event_id LIMIT $2", [afterEventId, limit, options.runId]);
    return rows.map(rowToEvent);
  }

  async transition(runId: string, to: RunStatus, options: TransitionOptions = {}): Promise<RunRecord> {
    await this.ready();
    return transitionRun(this.db, runId, to, options, this.clock);
  }

  async cancel(runId: string, options: CancelOptions = {}): Promise<RunRecord> {
    await this.ready();
    return cancelRun(this.db, runId, options, this.clock);
  }

  async resume(runId: string, options: ResumeOptions = {}): Promise<RunRecord> {
    await this.ready();
    return resumeRun(this.db, runId, options, this.clock);
  }

  async addUsage(runId: string, fence: number, delta: Partial<RunUsage>): Promise<RunUsage> {
    await this.ready();
    return (await addUsageFenced(this.db, runId, fence, delta, this.clock())).usage;
  }

  async checkLease(runId: string, fence: number, usage?: Partial<RunUsage>): Promise<RunRecord> {
    await this.ready();
    if (usage !== undefined) return addUsageFenced(this.db, runId, fence, usage, this.clock());
    const run = await getRun(this.db, runId);
    assertFence(run, fence);
    return run;
  }

  async assertHeld(runId: string, fence: number): Promise<void> {
    await this.ready();
    await assertHeldOn(this.db, runId, fence, false);
  }

  /**
   * One statement on the caller's transaction client: with usage, the fenced UPDATE (its row lock holds off a
   * takeover until that transaction ends); without, a `FOR SHARE` read of the lease. Refuses a SQLite transaction.
   * The row stays locked until `tx` ends, so `tx` must not wait on a write of this run made through the pool.
   * With `tx.withWrite`, the statement is sent with the transaction's write and fails it instead.
   */
  async fenceIn(tx: StoreTransaction, runId: string, fence: number, usage?: Partial<RunUsage>): Promise<void> {
    if (tx.backend !== "postgres") throw new SystemError("INTERNAL", "a PostgreSQL run store cannot fence inside a SQLite transaction");
    // No migration wait here: it would need a second connection while the caller's transaction holds one, and a
    // run being fenced was claimed through a migrated store.
    // Before a checkpoint's one write, the fence goes in the same send (one round trip for the whole transaction).
    if (tx.withWrite === true && "sendWithNext" in tx.client && holdFence(tx.client as PgTransactionClient, runId, fence, usage, this.clock())) return;
    if (usage !== undefined) await addUsageFenced(tx.client, runId, fence, usage, this.clock());
    else await assertHeldOn(tx.client, runId, fence, true);
  }

  /** Goes with this process's other heartbeats in one statement (postgres-heartbeats.ts), after a short wait. */
  async renewLease(runId: string, fence: number, expiresAt: number): Promise<void> {
    await this.ready();
    await this.#heartbeats.renew(runId, fence, expiresAt);
  }

  async setBackoff(runId: string, fence: number, to: "RETRYING" | "RUNNING", options: { actor: string; reason: string }): Promise<RunRecord> {
    await this.ready();
    return setBackoffFenced(this.db, runId, fence, to, options, this.clock());
  }

  async leaseStates(runIds: readonly string[]): Promise<LeaseState[]> {
    await this.ready();
    const rows = await pgRows(this.db, "SELECT run_id, status, fencing_token FROM runs WHERE run_id = ANY($1::text[])", [[...new Set(runIds)]]);
    return rows.map((row) => ({ runId: row.run_id as string, status: row.status as RunStatus, fencingToken: row.fencing_token as number }));
  }

  async claimNext(claim: ClaimRequest): Promise<RunRecord | undefined> {
    await this.ready();
    return this.db.transaction((client) => claimNextIn(client, claim, this.clock()));
  }

  async claimRun(runId: string, claim: ClaimRunRequest): Promise<RunRecord | undefined> {
    await this.ready();
    return this.db.transaction((client) => claimRunIn(client, runId, claim, this.clock()));
  }

  /** True while the pool's connections are all lent out with callers waiting (see RunStore.saturated). */
  get saturated(): boolean {
    return this.db.saturated;
  }

  async hasPendingWork(): Promise<boolean> {
    await this.ready();
    return (await pgRows(this.db, PENDING_WORK))[0]?.pending === true;
  }

  async sweep(): Promise<RunRecord[]> {
    return this.sweepWhenDue();
  }

  async expireOverdueWaits(): Promise<RunRecord[]> {
    return this.sweepWhenDue("waits");
  }

  async expireWaitIfDue(runId: string): Promise<RunRecord> {
    await this.ready();
    return expireWaitIfDueRun(this.db, runId, this.clock);
  }

  /**
   * A count this store moves each time it finds runs changed since it last looked (any process, this one
   * included): a row written by a transaction its previous snapshot did not see (schema V5's `changed_xid`). A
   * reader that sees it move also sees the change. Undefined once the database is closed.
   */
  async changeStamp(): Promise<string | undefined> {
    const changes = await this.changes();
    return changes === undefined ? undefined : String(changes);
  }

  async dataVersion(): Promise<number | undefined> {
    return this.changes();
  }

  async assertSchemaCurrent(): Promise<void> {
    const version = await readPostgresVersion(this.db, RUNS_PG_SCHEMA.module);
    const known = RUNS_PG_SCHEMA.migrations.length;
    if (version > known) {
      throw new StorageError(
        "DB_SCHEMA_TOO_NEW",
        `${this.db.server} schema ${this.db.schema}: module runs is at schema version ${version}, newer than this agentrt knows (${known})`,
        { details: { module: "runs", version, known } },
      );
    }
  }

  /** One look at a time, so each compares with the snapshot of the one before it. */
  private changes(): Promise<number | undefined> {
    const look = this.#looked.then(() => this.lookForChanges());
    this.#looked = look.catch(() => undefined);
    return look;
  }

  private async lookForChanges(): Promise<number | undefined> {
    if (this.db.pool.ended) return undefined;
    await this.ready();
    const since = this.#seen.snapshot;
    const row = since === undefined
      ? (await pgRows(this.db, "SELECT pg_current_snapshot()::text AS snapshot, false AS moved"))[0]
      : (await pgRows(this.db, CHANGED_SINCE, [since]))[0];
    if (row === undefined) return undefined;
    this.#seen = { snapshot: row.snapshot as string, count: this.#seen.count + (row.moved === true ? 1 : 0) };
    return this.#seen.count;
  }

  /** A plain read first: the transaction (and its row locks) only when something is overdue. */
  private async sweepWhenDue(only?: "waits"): Promise<RunRecord[]> {
    await this.ready();
    const now = this.clock();
    const due = await pgRows(this.db, `SELECT 1 FROM runs WHERE ${overdueWhere(only)} LIMIT 1`, [now]);
    if (due.length === 0) return [];
    return this.db.transaction((client) => sweepIn(client, now, only));
  }
}
