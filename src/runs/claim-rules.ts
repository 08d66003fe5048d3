/**
 * The claim rules both backends share, as SQL fragments and plain functions: which run of a thread may be
 * claimed (only the oldest unfinished one: runs of a thread share its checkpoints), a user's cap, and the
 * reason a claim's event records.
 * @module
 */
import type { RunRecord } from "./run-record.js";
import type { ClaimCaps } from "./run-store.js";
import { countsAsAttempt } from "./transition-write.js";

/** A query for an unfinished run of `thread` created before (`createdAt`, `runId`): each an SQL expression or `?`. */
export function earlierUnfinished(thread: string, createdAt: string, runId: string): string {
  return `SELECT 1 FROM runs o WHERE o.thread_id = ${thread}
  AND o.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELED', 'EXPIRED')
  AND (o.created_at < ${createdAt} OR (o.created_at = ${createdAt} AND o.run_id < ${runId}))`;
}

/** Unfinished runs of the same thread created before run `r` (the outer query's alias). */
export const EARLIER_ON_THREAD = `EXISTS (${earlierUnfinished("r.thread_id", "r.created_at", "r.run_id")})`;

/** The cap of one user. */
export function userCap(caps: ClaimCaps, userId: string): number {
  return caps.userLimits[userId] ?? caps.maxRunningPerUser;
}

/** The reason a claim's event records. */
export function claimReason(run: RunRecord): string {
  return !countsAsAttempt(run) ? "claimed to resume" : run.attempts === 0 ? "claimed" : `claimed for attempt ${run.attempts + 1}`;
}
