/**
 * Wait time-to-live: a run waiting for approval or input longer than its
 * `waitTtlMs` becomes EXPIRED (WAIT_EXPIRED). Workers sweep on every claim;
 * approve, input and status check the one run lazily, so an expired wait can
 * never be resumed even when no worker is running.
 * @module
 */
import { UserInputError } from "../errors.js";
import { isWaiting } from "./lifecycle.js";
import type { RunRecord } from "./run-record.js";
import type { SqliteRuns } from "./sqlite-runs.js";
import type { TransitionOptions } from "./transition-write.js";

/** The error code of a run whose approval or input wait outlived its TTL. */
export const WAIT_EXPIRED = "WAIT_EXPIRED";

/** The wait TTL runs get unless given: env `AGENTRT_WAIT_TTL_MS`, else none (wait forever). BAD_INPUT when malformed. */
export function defaultWaitTtlMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.AGENTRT_WAIT_TTL_MS?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UserInputError("BAD_INPUT", `AGENTRT_WAIT_TTL_MS must be a positive integer of ms, got "${raw}"`);
  }
  return value;
}

function expire(store: SqliteRuns, run: RunRecord): RunRecord {
  return store.applyTransition(run, "EXPIRED", waitExpiry(run));
}

/** The EXPIRED transition's options for a run whose wait outlived its TTL, on every backend. */
export function waitExpiry(run: RunRecord): TransitionOptions {
  const what = run.status === "WAITING_APPROVAL" ? "approval" : "input";
  return {
    errorCode: WAIT_EXPIRED,
    errorMessage: `no ${what} within the wait TTL of ${run.waitTtlMs ?? "?"} ms`,
    reason: `${what} wait expired`,
  };
}

const OVERDUE_WAITS =
  // Same terms as the partial index runs_by_open_wait.
  `SELECT run_id FROM runs WHERE wait_expires_at IS NOT NULL AND wait_expires_at <= ?
     AND status IN ('WAITING_INPUT', 'WAITING_APPROVAL') ORDER BY run_id`;

/** True when some wait is overdue: a plain read, so readers take the write lock only when there is work. */
export function hasOverdueWaits(store: SqliteRuns, now: number): boolean {
  return store.stmt(`${OVERDUE_WAITS} LIMIT 1`).get(now) !== undefined;
}

/** Moves every waiting run whose wait deadline has passed to EXPIRED. Call inside a transaction. */
export function expireOverdueWaits(store: SqliteRuns, now: number): RunRecord[] {
  const overdue = store.stmt(OVERDUE_WAITS).all(now) as { run_id: string }[];
  return overdue.map(({ run_id }) => expire(store, store.get(run_id)));
}

/** The run, first moved to EXPIRED if its wait has outlived its TTL (UNKNOWN_RUN for an unknown id). */
export function expireWaitIfDue(store: SqliteRuns, runId: string): RunRecord {
  const run = store.get(runId);
  if (!isWaitDue(run, store.clock())) return run;
  return store.transaction(() => {
    const current = store.get(runId);
    return isWaitDue(current, store.clock()) ? expire(store, current) : current;
  });
}

/** True for a waiting run whose wait deadline has passed at `now`. */
export function isWaitDue(run: RunRecord, now: number): boolean {
  return isWaiting(run.status) && run.waitExpiresAt !== null && run.waitExpiresAt <= now;
}
