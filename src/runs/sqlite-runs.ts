/**
 * The SQLite run engine (synchronous): creates runs, reads them back and moves them through the
 * lifecycle, appending a `run_events` row in the same transaction as every
 * status change. Writes by a lease holder are fenced by its token.
 * @module
 */
import type Database from "better-sqlite3";
import { migrate, readVersion, type SqliteDatabase } from "../db/index.js";
import { atomically } from "../db/in-transaction.js";
import { StorageError, SystemError, UserInputError } from "../errors.js";
import { IllegalTransitionError, UnknownRunError } from "./errors.js";
import { assertFence } from "./fence.js";
import { setBackoff } from "./backoff.js";
import { claimKeySqlite } from "./sqlite-idempotency.js";
import { assertTransition, isRunStatus, isTerminal, isWaiting, type RunStatus } from "./lifecycle.js";
import { newRunValues, type NewRunValues } from "./new-run.js";
import { appendRunEvent, listEventsAfter, listRunEvents } from "./run-events.js";
import { rowToRun, type RunEvent, type RunRecord, type RunUsage } from "./run-record.js";
import { RUNS_SCHEMA } from "./schema.js";
import { writeTransition, type ClaimFields, type TransitionFrom, type TransitionOptions } from "./transition-write.js";
import { callWithin, settleHooks } from "./within.js";
import { assertUnchanged, type ExpectedRunState } from "./unchanged.js";

export type { ClaimFields, TransitionOptions } from "./transition-write.js";
import type { CancelOptions, CreateRunInput, RunFilter, RunStoreOptions } from "./run-store.js";

/**
 * The INSERT of a new run: newRunValues' columns in its order (with `status` and `updated_at`, the statement's own,
 * in their places), then `extra` (a claimed run's lease columns). One list for both, so they cannot drift apart.
 */
function newRunInsert(status: "QUEUED" | "RUNNING", extra: { columns: string; values: string } | undefined): string {
  return `INSERT INTO runs (run_id, thread_id, graph_id, user_id, status, priority, max_attempts, deadline_at,
         available_at, budget_json, input_json, metadata_json, created_at, updated_at, wait_ttl_ms, config_json${extra === undefined ? "" : `,
         ${extra.columns}`})
       VALUES (?, ?, ?, ?, '${status}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?${extra === undefined ? "" : `, ${extra.values}`})
       RETURNING *`;
}
const INSERT_QUEUED = newRunInsert("QUEUED", undefined);
/** Claimed by a lease owner until an expiry, token 1, its first attempt started at the claim. */
const INSERT_CLAIMED = newRunInsert("RUNNING", { columns: "lease_owner, lease_expires_at, fencing_token, attempts, started_at", values: "?, ?, 1, 1, ?" });

/**
 * The synchronous SQLite engine behind {@link SqliteRunStore}: one better-sqlite3 connection, every
 * atomic unit one BEGIN IMMEDIATE transaction. Internal to src/runs.
 */
export class SqliteRuns {
  readonly db: SqliteDatabase;
  readonly clock: () => number;
  private readonly statements = new Map<string, Database.Statement<unknown[]>>();

  private constructor(db: SqliteDatabase, clock: () => number) {
    this.db = db;
    this.clock = clock;
  }

  /**
   * Migrates the runs tables and returns a store. Throws a StorageError
   * DB_SCHEMA_TOO_NEW when the file was written by a newer agentrt.
   * @example const store = SqliteRuns.open(openDatabase("agentrt.db"));
   */
  static open(db: SqliteDatabase, options: RunStoreOptions = {}): SqliteRuns {
    // A read-only connection reads an older file as it is (rows parse without the newer columns).
    const version = db.readonly ? readVersion(db, RUNS_SCHEMA.module) : 0;
    if (!(version >= 1 && version < RUNS_SCHEMA.migrations.length)) migrate(db, RUNS_SCHEMA);
    return new SqliteRuns(db, options.clock ?? Date.now);
  }

  /** Runs `fn` in a BEGIN IMMEDIATE transaction (a savepoint when nested). */
  transaction<T>(fn: () => T): T {
    return atomically(this.db, fn);
  }

  /** Writes a QUEUED run and its first event; BAD_INPUT for a taken run id or non-integer numbers or a bad budget. */
  create(input: CreateRunInput): RunRecord {
    const values = this.newValues(input);
    const { idempotency } = input;
    return this.transaction(() => {
      if (idempotency !== undefined) claimKeySqlite(this.db, values[3], idempotency, values[0], values[11]);
      return this.insertRun(values);
    });
  }

  /**
   * Internal: {@link create} inside the caller's transaction, which rolls back whole if this throws (so no
   * savepoint of its own): createAndClaim's, with the values {@link newValues} checked.
   */
  createNow(values: NewRunValues): RunRecord {
    return this.insertRun(values);
  }

  /**
   * Internal: a new run written claimed by `claim` at `at` — the row and both events ("created", then "claimed") as
   * a create then a claim leave them — in one INSERT instead of an INSERT and the claim's UPDATE of the same row and
   * indexes. Inside the caller's transaction, which has checked that the run may be claimed (createAndClaim's).
   * Returns the run as created (QUEUED) and as claimed, and the events written (no read needed for the trace's start).
   */
  createClaimedNow(values: NewRunValues, claim: ClaimFields, at: number): { run: RunRecord; claimed: RunRecord; events: RunEvent[] } {
    const [runId, , , , , , , , , , , now] = values;
    const row = this.stmt(INSERT_CLAIMED).get(...values.slice(0, 12), at, ...values.slice(12), claim.owner, claim.expiresAt, at);
    const events = [
      appendRunEvent(this.db, { runId, from: null, to: "QUEUED", at: now }),
      appendRunEvent(this.db, { runId, from: "QUEUED", to: "RUNNING", at, actor: claim.owner, fencingToken: 1, reason: "claimed" }),
    ];
    const claimed = rowToRun(row);
    // The record the create alone would have returned: the claim's columns as a new row has them.
    const run: RunRecord = { ...claimed, status: "QUEUED", attempts: 0, fencingToken: 0, lease: null, updatedAt: now, startedAt: null };
    return { run, claimed, events };
  }

  /**
   * Internal: the new row's values; BAD_INPUT for a taken run id (an existence check, not a read: the INSERT returns
   * the row as written).
   */
  newValues(input: CreateRunInput): NewRunValues {
    const values = newRunValues(input, this.clock());
    const runId = values[0];
    if (this.stmt("SELECT 1 FROM runs WHERE run_id = ?").get(runId) !== undefined) {
      throw new UserInputError("BAD_INPUT", `a run with id ${runId} already exists`, { details: { runId } });
    }
    return values;
  }

  private insertRun(values: NewRunValues): RunRecord {
    const [runId, , , , , , , , , , , now] = values;
    const row = this.stmt(INSERT_QUEUED).get(...values.slice(0, 12), now, ...values.slice(12));
    appendRunEvent(this.db, { runId, from: null, to: "QUEUED", at: now });
    return rowToRun(row);
  }

  /** The run, or a UnknownRunError. */
  get(runId: string): RunRecord {
    const run = this.find(runId);
    if (run === undefined) throw new UnknownRunError(runId);
    return run;
  }

  /** The run, or undefined. */
  find(runId: string): RunRecord | undefined {
    const row = this.stmt("SELECT * FROM runs WHERE run_id = ?").get(runId);
    return row === undefined ? undefined : rowToRun(row);
  }

  /** Runs matching the filter, in claim order (priority, then age) unless `order: "newest"`. */
  list(filter: RunFilter = {}): RunRecord[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.status !== undefined) {
      const statuses = typeof filter.status === "string" ? [filter.status] : [...filter.status];
      where.push(`status IN (${statuses.map(() => "?").join(", ")})`);
      args.push(...statuses);
    }
    for (const [column, value] of [["user_id", filter.userId], ["graph_id", filter.graphId], ["thread_id", filter.threadId]] as const) {
      if (value !== undefined) {
        where.push(`${column} = ?`);
        args.push(value);
      }
    }
    const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
    const order = filter.order === "newest" ? "created_at DESC, run_id DESC" : "priority DESC, created_at, run_id";
    return this.db
      .prepare(`SELECT * FROM runs ${clause} ORDER BY ${order} LIMIT ?`)
      .all(...args, filter.limit ?? 1000)
      .map(rowToRun);
  }

  /** The newest run (by creation) of each of `threadIds` that has one, in one statement whatever their number. */
  latestOfThreads(threadIds: readonly string[]): Map<string, RunRecord> {
    const rows = this.stmt(
      `SELECT r.* FROM json_each(?) AS t JOIN runs r ON r.run_id =
         (SELECT run_id FROM runs WHERE thread_id = t.value ORDER BY created_at DESC, run_id DESC LIMIT 1)`,
    ).all(JSON.stringify(threadIds));
    return new Map(rows.map(rowToRun).map((run) => [run.threadId, run]));
  }

  /** The run's status changes, oldest first. */
  events(runId: string): RunEvent[] {
    return listRunEvents(this.db, runId);
  }

  /**
   * Status changes of every run (or one) with `eventId > afterEventId`, oldest
   * first: lets another process tail the log (pass the last id it has seen).
   */
  eventsAfter(afterEventId: number, options: { runId?: string; limit?: number } = {}): RunEvent[] {
    return listEventsAfter(this.db, afterEventId, options);
  }

  /**
   * Moves a run to `to` and appends the event, atomically. With `fence` the
   * write succeeds only while the caller's lease is current (else
   * LeaseLostError); without it, leaving RUNNING revokes the holder's lease
   * (cancel, expiry). RUNNING itself is entered only through a claim.
   */
  transition(runId: string, to: RunStatus, options: TransitionOptions = {}): RunRecord {
    if (to === "RUNNING") {
      throw new SystemError("ILLEGAL_TRANSITION", `run ${runId}: RUNNING is entered only by claiming a lease (Scheduler.claimRun)`);
    }
    const { within } = options;
    if (within === undefined) return this.transaction(() => this.transitionNow(runId, to, options));
    return settleHooks((keep) => this.transaction(() => {
      const run = this.transitionNow(runId, to, options);
      keep(callWithin(this.db, within, run, () => this.events(runId)));
      return run;
    }));
  }

  private transitionNow(runId: string, to: RunStatus, options: TransitionOptions): RunRecord {
    if (options.fence !== undefined) {
      // What the holder deferred, and the end of a backoff it still shows, commit with its status change.
      if (options.usage !== undefined) this.addUsage(runId, options.fence, options.usage);
      if (options.endBackoff !== undefined) setBackoff(this, runId, options.fence, "RUNNING", { actor: options.actor ?? "", reason: options.endBackoff });
    }
    // A lease holder's change needs only the guard columns: no whole record read and parsed before the write.
    const current = options.fence === undefined ? this.get(runId) : this.guardOf(runId);
    if (options.fence !== undefined) assertFence(current, options.fence);
    assertTransition(current.status, to, runId);
    return this.applyTransition(current, to, options);
  }

  /** What a fenced transition checks and writes by: status, token, lease, availability (UNKNOWN_RUN when absent). */
  private guardOf(runId: string): TransitionFrom {
    const row = this.stmt("SELECT status, fencing_token, lease_owner, lease_expires_at, available_at FROM runs WHERE run_id = ?").get(runId) as
      | { status: RunStatus; fencing_token: number; lease_owner: string | null; lease_expires_at: number | null; available_at: number }
      | undefined;
    if (row === undefined) throw new UnknownRunError(runId);
    if (!isRunStatus(row.status)) throw new StorageError("DB_CORRUPT", `unreadable runs row ${runId}: status ${String(row.status)}`);
    const lease = row.lease_owner === null || row.lease_expires_at === null ? null : { owner: row.lease_owner, expiresAt: row.lease_expires_at };
    return { runId, status: row.status, fencingToken: row.fencing_token, lease, availableAt: row.available_at };
  }

  /**
   * Cancels a run that is not finished (else RUN_FINISHED), with `expect` only while it is still so (else
   * RUN_NOT_WAITING), both checked in the same transaction; done side effects stay done.
   */
  cancel(runId: string, options: CancelOptions = {}): RunRecord {
    return this.transaction(() => {
      const current = this.get(runId);
      // A run that finished since the caller looked (another process) is the caller's race, not a bug.
      if (isTerminal(current.status)) throw new UserInputError("RUN_FINISHED", `run ${runId} is already ${current.status}; nothing to cancel`);
      assertUnchanged(current, options.expect);
      const { actor, reason } = options;
      // Who canceled and why, so `status` never prints an empty reason.
      const why = reason === undefined || reason === "canceled" ? "" : `: ${reason}`;
      const errorMessage = `canceled${actor === undefined ? "" : ` by ${actor}`}${why}`;
      return this.transition(runId, "CANCELED", { actor, reason, errorCode: "CANCELED", errorMessage });
    });
  }

  /**
   * Hands a waiting run back to the queue with what it resumes with. With `expect`, the run must
   * still be in the state the resume was checked against (else RUN_NOT_WAITING, nothing changed);
   * a wait past its TTL is RUN_NOT_WAITING too. `availableAt`: not claimed by a worker before then (a claim by id is).
   */
  resume(runId: string, options: { resume?: unknown; actor?: string; reason?: string; expect?: ExpectedRunState; availableAt?: number } = {}): RunRecord {
    return this.transaction(() => {
      const current = this.get(runId);
      assertUnchanged(current, options.expect);
      if (!isWaiting(current.status)) throw new IllegalTransitionError({ runId, from: current.status, to: "QUEUED" });
      // A wait past its TTL is over even if no sweep has marked it EXPIRED yet: it cannot be resumed.
      if (current.waitExpiresAt !== null && current.waitExpiresAt <= this.clock()) {
        throw new UserInputError("RUN_NOT_WAITING", `run ${runId}: its wait expired (TTL ${current.waitTtlMs ?? "?"} ms); nothing was applied`);
      }
      return this.applyTransition(current, "QUEUED", options);
    });
  }

  /** Adds to the run's usage counters as its lease holder (also while it backs off RETRYING); returns the totals. */
  addUsage(runId: string, fence: number, delta: Partial<RunUsage>): RunUsage {
    const totals = this.stmt(
      `UPDATE runs SET steps = steps + ?, model_calls = model_calls + ?, tokens = tokens + ?, cost_usd = cost_usd + ?,
         updated_at = ? WHERE run_id = ? AND fencing_token = ? AND status IN ('RUNNING', 'RETRYING') AND lease_owner IS NOT NULL
       RETURNING steps, model_calls, tokens, cost_usd`,
    ).get(delta.steps ?? 0, delta.modelCalls ?? 0, delta.tokens ?? 0, delta.costUsd ?? 0, this.clock(), runId, fence) as
      | { steps: number; model_calls: number; tokens: number; cost_usd: number }
      | undefined;
    if (totals === undefined) {
      assertFence(this.get(runId), fence);
      throw new SystemError("INTERNAL", `run ${runId}: usage not updated although the lease is held`);
    }
    // The totals come back from the UPDATE itself: no second read.
    return { steps: totals.steps, modelCalls: totals.model_calls, tokens: totals.tokens, costUsd: totals.cost_usd };
  }

  /**
   * Internal: writes an already-validated transition guarded by the current
   * status and token, appends its event and returns the new record.
   */
  applyTransition(current: TransitionFrom, to: RunStatus, options: TransitionOptions, claim?: ClaimFields): RunRecord {
    return writeTransition(this, current, to, options, claim);
  }

  /** Internal: a cached prepared statement. */
  stmt(sql: string): Database.Statement<unknown[]> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[]>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
