/**
 * The single guarded write behind every run status change: updates the row only if its status and
 * fencing token are still as read, and appends the matching `run_events` row.
 * @module
 */
import { SystemError } from "../errors.js";
import { assertFence } from "./fence.js";
import { isTerminal, isWaiting, type RunStatus } from "./lifecycle.js";
import { appendRunEvent } from "./run-events.js";
import { rowToRun, toJson, type RunRecord, type RunUsage } from "./run-record.js";
import { encodeOpaque } from "./stored-documents.js";
import type { SqliteRuns } from "./sqlite-runs.js";
import type { WithinTransaction } from "./within.js";

/** Options of a status change; see `SqliteRuns.transition`. */
export interface TransitionOptions {
  /** The caller's fencing token; required when the caller holds the run's lease. */
  fence?: number;
  /** Who makes the change (worker id, "cli", "api"); recorded in the event. */
  actor?: string;
  /** Human-readable why, recorded in the event. */
  reason?: string;
  errorCode?: string;
  errorMessage?: string;
  /** Final result (SUCCEEDED) or partial result, JSON-serialisable. */
  result?: unknown;
  /** What a WAITING_* run waits for, JSON-serialisable. */
  pending?: unknown;
  /** What the run will resume with (WAITING_* → QUEUED/RUNNING). */
  resume?: unknown;
  /** When the run becomes claimable (again): RETRYING, or a resume held back for the process that will start it. @default now for RETRYING, else unchanged */
  availableAt?: number;
  /** Internal: a graceful hand-back (RUNNING → RETRYING): the attempt it interrupted is not counted. */
  refundAttempt?: boolean;
  /** With `fence`: usage the holder deferred, written first in the same transaction. */
  usage?: Partial<RunUsage>;
  /** With `fence`: a backoff still shown (RETRYING under the lease) ends first, with this reason. */
  endBackoff?: string;
  /**
   * Done inside the change's transaction, after it (SQLite; PostgreSQL does not call it): the trace's end, so an
   * outcome and its trace commit together. Use at the top level only (not inside another transaction).
   */
  within?: WithinTransaction;
}

/** What a transition needs of the run it changes: the guard columns, not the whole record. */
export type TransitionFrom = Pick<RunRecord, "runId" | "status" | "fencingToken" | "availableAt" | "lease"> & Partial<Pick<RunRecord, "resume">>;

/** Internal: lease fields written when a transition enters RUNNING. */
export interface ClaimFields {
  owner: string;
  expiresAt: number;
}

/**
 * Internal: writes an already-validated transition guarded by the current
 * status and token, appends its event and returns the new record.
 */
export function writeTransition(
  store: SqliteRuns, current: TransitionFrom, to: RunStatus, options: TransitionOptions, claim?: ClaimFields,
): RunRecord {
  const now = store.clock();
  const guardToken = options.fence ?? current.fencingToken;
  const leaving = isWaiting(to) || isTerminal(to);
  const attemptDelta = claim !== undefined ? (countsAsAttempt(current) ? 1 : 0) : options.refundAttempt === true ? -1 : 0;
  const row = store.stmt(
    `UPDATE runs SET status = ?, updated_at = ?,
       lease_owner = ?, lease_expires_at = ?,
       fencing_token = fencing_token + ?, attempts = MAX(0, attempts + ?),
       started_at = CASE WHEN ? = 1 THEN COALESCE(started_at, ?) ELSE started_at END,
       finished_at = ?,
       available_at = ?,
       error_code = CASE WHEN ? = 'SUCCEEDED' THEN NULL ELSE COALESCE(?, error_code) END,
       error_message = CASE WHEN ? = 'SUCCEEDED' THEN NULL ELSE COALESCE(?, error_message) END,
       result_json = COALESCE(?, result_json),
       pending_json = ?,
       wait_expires_at = CASE WHEN ? = 1 THEN ? + wait_ttl_ms ELSE NULL END,
       resume_json = CASE WHEN ? = 1 THEN NULL ELSE COALESCE(?, resume_json) END
     WHERE run_id = ? AND status = ? AND fencing_token = ?
     RETURNING *`,
  ).get(
    to, now,
    claim?.owner ?? null, claim?.expiresAt ?? null,
    claim === undefined ? 0 : 1, attemptDelta,
    claim === undefined ? 0 : 1, now,
    isTerminal(to) ? now : null,
    options.availableAt ?? (to === "RETRYING" ? now : current.availableAt),
    to, options.errorCode ?? null,
    to, options.errorMessage ?? null,
    toJson(options.result),
    isWaiting(to) ? encodeOpaque(options.pending ?? null) : null,
    isWaiting(to) ? 1 : 0, now,
    leaving ? 1 : 0, encodeOpaque(options.resume),
    current.runId, current.status, guardToken,
  );
  if (row === undefined) {
    if (options.fence !== undefined) assertFence(store.get(current.runId), options.fence);
    throw new SystemError("INTERNAL", `run ${current.runId}: changed underneath a transaction (${current.status} → ${to})`);
  }
  appendRunEvent(store.db, {
    runId: current.runId,
    from: current.status,
    to,
    at: now,
    actor: claim?.owner ?? options.actor ?? null,
    fencingToken: claim === undefined ? current.fencingToken : current.fencingToken + 1,
    errorCode: options.errorCode ?? null,
    reason: options.reason ?? null,
  });
  // The record as written, from the UPDATE itself (no second read).
  return rowToRun(row);
}

/**
 * Whether claiming `run` starts a new attempt. Resuming a run that waited for a person (directly, or queued
 * with its resume) continues the attempt that asked: approvals and answers never use up the attempts that
 * crash recovery and retries need.
 */
export function countsAsAttempt(run: Pick<RunRecord, "status"> & Partial<Pick<RunRecord, "resume">>): boolean {
  return !isWaiting(run.status) && !(run.status === "QUEUED" && run.resume != null);
}
