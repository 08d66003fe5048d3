/**
 * The run store on SQLite: the {@link RunStore} interface over the synchronous engine ({@link SqliteRuns}),
 * each method one BEGIN IMMEDIATE transaction as before the interface existed (no extra statement or commit).
 * Its fence ({@link RunStore.fenceIn}) runs synchronously inside the SqliteSaver's or the ledger's own transaction.
 * @module
 */
import { assertSchemaCurrent, type SqliteDatabase, type StoreTransaction } from "../db/index.js";
import { SystemError } from "../errors.js";
import { setBackoff } from "./backoff.js";
import { assertFence } from "./fence.js";
import type { RunStatus } from "./lifecycle.js";
import type { RunEvent, RunRecord, RunUsage } from "./run-record.js";
import type {
  CancelOptions,
  ClaimRequest, ClaimRunRequest, CreateRunInput, LeaseState, RunFilter, RunStore, RunStoreOptions,
} from "./run-store.js";
import { RUNS_SCHEMA } from "./schema.js";
import { claimNextNow, claimRunNow, createAndClaimNow, hasPendingWorkNow, sweepRuns } from "./sqlite-claims.js";
import { SqliteRuns } from "./sqlite-runs.js";
import type { IdempotentRun } from "./idempotency.js";
import { findIdempotentSqlite } from "./sqlite-idempotency.js";
import type { TransitionOptions } from "./transition-write.js";
import type { ExpectedRunState } from "./unchanged.js";
import { expireOverdueWaits, expireWaitIfDue, hasOverdueWaits } from "./wait-expiry.js";
import { callWithin, settleHooks, type WithinTransaction } from "./within.js";

/** Durable run records and their event log in one SQLite file. */
export class SqliteRunStore implements RunStore {
  /** Internal: the synchronous engine (src/runs only). */
  readonly sync: SqliteRuns;
  readonly clock: () => number;

  private constructor(sync: SqliteRuns) {
    this.sync = sync;
    this.clock = sync.clock;
  }

  /**
   * Migrates the runs tables (a read-only connection reads an older file as it is) and returns a store.
   * Throws a StorageError DB_SCHEMA_TOO_NEW when the file was written by a newer agentrt.
   * @example const store = SqliteRunStore.open(openDatabase("agentrt.db"));
   */
  static open(db: SqliteDatabase, options: RunStoreOptions = {}): SqliteRunStore {
    return new SqliteRunStore(SqliteRuns.open(db, options));
  }

  /** The connection the store writes to. */
  get db(): SqliteDatabase {
    return this.sync.db;
  }

  async create(input: CreateRunInput): Promise<RunRecord> {
    return this.sync.create(input);
  }

  async findIdempotent(userId: string, key: string): Promise<IdempotentRun | undefined> {
    return findIdempotentSqlite(this.sync.db, userId, key, this.clock());
  }

  async createAndClaim(input: CreateRunInput, claim: ClaimRequest, within?: WithinTransaction): Promise<{ run: RunRecord; claimed: RunRecord | undefined }> {
    return settleHooks((keep) => this.sync.transaction(() => {
      const { run, claimed, events } = createAndClaimNow(this.sync, input, claim);
      // The events this transaction wrote are the run's whole log: no read of it for the trace's start.
      if (claimed !== undefined && within !== undefined) keep(callWithin(this.sync.db, within, claimed, () => events ?? this.sync.events(run.runId)));
      return { run, claimed };
    }));
  }

  async get(runId: string): Promise<RunRecord> {
    return this.sync.get(runId);
  }

  async find(runId: string): Promise<RunRecord | undefined> {
    return this.sync.find(runId);
  }

  async list(filter: RunFilter = {}): Promise<RunRecord[]> {
    return this.sync.list(filter);
  }

  async latestOfThreads(threadIds: readonly string[]): Promise<Map<string, RunRecord>> {
    return this.sync.latestOfThreads(threadIds);
  }

  async events(runId: string): Promise<RunEvent[]> {
    return this.sync.events(runId);
  }

  async eventsAfter(afterEventId: number, options: { runId?: string; limit?: number } = {}): Promise<RunEvent[]> {
    return this.sync.eventsAfter(afterEventId, options);
  }

  async transition(runId: string, to: RunStatus, options: TransitionOptions = {}): Promise<RunRecord> {
    return this.sync.transition(runId, to, options);
  }

  async cancel(runId: string, options: CancelOptions = {}): Promise<RunRecord> {
    return this.sync.cancel(runId, options);
  }

  async resume(runId: string, options: { resume?: unknown; actor?: string; reason?: string; expect?: ExpectedRunState; availableAt?: number } = {}): Promise<RunRecord> {
    return this.sync.resume(runId, options);
  }

  async addUsage(runId: string, fence: number, delta: Partial<RunUsage>): Promise<RunUsage> {
    return this.sync.addUsage(runId, fence, delta);
  }

  async checkLease(runId: string, fence: number, usage?: Partial<RunUsage>): Promise<RunRecord> {
    if (usage !== undefined) this.sync.addUsage(runId, fence, usage);
    const run = this.sync.get(runId);
    assertFence(run, fence);
    return run;
  }

  async assertHeld(runId: string, fence: number): Promise<void> {
    this.assertHeldNow(runId, fence);
  }

  /** Inside the caller's (the checkpoint's, the ledger's) transaction on this store's connection: the fence, then the usage. */
  fenceIn(tx: StoreTransaction, runId: string, fence: number, usage?: Partial<RunUsage>): void {
    if (tx.backend !== "sqlite") throw new SystemError("INTERNAL", "a SQLite run store cannot fence inside a PostgreSQL transaction");
    // With usage, its UPDATE is the fence (it changes the row only while this lease is held, else assertFence refuses):
    // no SELECT before it.
    if (usage !== undefined) this.sync.addUsage(runId, fence, usage);
    else this.assertHeldNow(runId, fence);
  }

  async renewLease(runId: string, fence: number, expiresAt: number): Promise<void> {
    const changed = this.sync
      // A RETRYING run with an owner is backing off in this holder's process: its lease stays renewed.
      .stmt("UPDATE runs SET lease_expires_at = ? WHERE run_id = ? AND fencing_token = ? AND status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL")
      .run(expiresAt, runId, fence).changes;
    if (changed === 0) assertFence(this.sync.get(runId), fence);
  }

  async setBackoff(runId: string, fence: number, to: "RETRYING" | "RUNNING", options: { actor: string; reason: string }): Promise<RunRecord> {
    return setBackoff(this.sync, runId, fence, to, options);
  }

  async leaseStates(runIds: readonly string[]): Promise<LeaseState[]> {
    const rows = this.sync
      .stmt("SELECT run_id, status, fencing_token FROM runs WHERE run_id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify([...new Set(runIds)])) as { run_id: string; status: RunStatus; fencing_token: number }[];
    return rows.map((row) => ({ runId: row.run_id, status: row.status, fencingToken: row.fencing_token }));
  }

  async claimNext(claim: ClaimRequest): Promise<RunRecord | undefined> {
    return this.sync.transaction(() => claimNextNow(this.sync, claim));
  }

  async claimRun(runId: string, claim: ClaimRunRequest): Promise<RunRecord | undefined> {
    return this.sync.transaction(() => claimRunNow(this.sync, runId, claim));
  }

  async hasPendingWork(): Promise<boolean> {
    return hasPendingWorkNow(this.sync);
  }

  async sweep(): Promise<RunRecord[]> {
    return this.sync.transaction(() => sweepRuns(this.sync, this.clock()));
  }

  async expireOverdueWaits(): Promise<RunRecord[]> {
    // A read first: the write lock (contended by workers) only when a wait is overdue.
    if (!hasOverdueWaits(this.sync, this.clock())) return [];
    return this.sync.transaction(() => expireOverdueWaits(this.sync, this.clock()));
  }

  async expireWaitIfDue(runId: string): Promise<RunRecord> {
    return expireWaitIfDue(this.sync, runId);
  }

  async dataVersion(): Promise<number | undefined> {
    // SQLite's data_version: moves with other connections' commits only.
    return this.sync.db.open ? (this.sync.db.pragma("data_version", { simple: true }) as number) : undefined;
  }

  async changeStamp(): Promise<string | undefined> {
    return this.changeStampNow();
  }

  /**
   * Synchronous {@link changeStamp}: `data_version` moves with other connections' commits, `total_changes()`
   * with this one's; undefined once closed.
   */
  private changeStampNow(): string | undefined {
    const db = this.sync.db;
    if (!db.open) return undefined;
    return `${String(db.pragma("data_version", { simple: true }))}:${String(db.prepare("SELECT total_changes()").pluck().get())}`;
  }

  async assertSchemaCurrent(): Promise<void> {
    assertSchemaCurrent(this.sync.db, RUNS_SCHEMA);
  }

  private assertHeldNow(runId: string, fence: number): void {
    const held = this.sync
      .stmt("SELECT 1 FROM runs WHERE run_id = ? AND fencing_token = ? AND (status = 'RUNNING' OR (status = 'RETRYING' AND lease_owner IS NOT NULL))")
      .get(runId, fence);
    if (held === undefined) assertFence(this.sync.get(runId), fence);
  }
}
