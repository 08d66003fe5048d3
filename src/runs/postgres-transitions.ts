/**
 * Status changes on PostgreSQL without an explicit transaction: the run is read, the change validated as SQLite
 * validates it inside its transaction, then written by ONE guarded statement (status and token still as read, see
 * postgres-run-rows.ts). A guard that no longer holds means another writer won: the run is read again and the
 * change validated again, so the outcome is the one a serial order would give. A lease holder's change is first
 * tried without the read (its run is RUNNING, or RETRYING when it ends a backoff): one round trip.
 * @module
 */
import type { PgQueryable } from "../db/postgres/index.js";
import { SystemError, UserInputError } from "../errors.js";
import { IllegalTransitionError } from "./errors.js";
import { assertFence } from "./fence.js";
import { assertTransition, canTransition, isTerminal, isWaiting, type RunStatus } from "./lifecycle.js";
import { WRITE_ROUNDS } from "./postgres-fenced.js";
import { changeEvent, getRun, writeTransition, type PgEvent, type PgTransitionWrite } from "./postgres-run-rows.js";
import type { RunRecord } from "./run-record.js";
import type { CancelOptions } from "./run-store.js";
import type { TransitionOptions } from "./transition-write.js";
import { assertUnchanged, type ExpectedRunState } from "./unchanged.js";
import { isWaitDue, waitExpiry } from "./wait-expiry.js";

type Current = Pick<RunRecord, "runId" | "status" | "fencingToken" | "lease">;

/** The guarded write of `current → to` (LeaseLostError / ILLEGAL_TRANSITION first, as SQLite's transition checks). */
function plan(current: Current, to: RunStatus, options: TransitionOptions, now: number): PgTransitionWrite {
  const { fence } = options;
  if (fence !== undefined) assertFence(current, fence);
  const events: PgEvent[] = [];
  let from = current.status;
  // A backoff still shown (RETRYING under the lease) ends first, in the same write.
  if (fence !== undefined && options.endBackoff !== undefined && current.status === "RETRYING") {
    events.push({ from: "RETRYING", to: "RUNNING", actor: options.actor ?? "", fencingToken: fence, errorCode: null, reason: options.endBackoff });
    from = "RUNNING";
  }
  assertTransition(from, to, current.runId);
  events.push(changeEvent(from, to, current.fencingToken, options));
  const usage = fence === undefined ? undefined : options.usage;
  return { runId: current.runId, from: current.status, token: current.fencingToken, held: fence !== undefined, to, options, now, usage, events };
}

/** `RunStore.transition` on PostgreSQL. */
export async function transitionRun(on: PgQueryable, runId: string, to: RunStatus, options: TransitionOptions, clock: () => number): Promise<RunRecord> {
  if (to === "RUNNING") {
    throw new SystemError("ILLEGAL_TRANSITION", `run ${runId}: RUNNING is entered only by claiming a lease (Scheduler.claimRun)`);
  }
  const { fence } = options;
  if (fence !== undefined) {
    const guess: RunStatus = options.endBackoff !== undefined ? "RETRYING" : "RUNNING";
    if (canTransition("RUNNING", to)) {
      const held = { owner: "", expiresAt: 0 };
      const written = await writeTransition(on, plan({ runId, status: guess, fencingToken: fence, lease: held }, to, options, clock()));
      if (written !== undefined) return written;
    }
  }
  return guarded(on, runId, (current) => plan(current, to, options, clock()));
}

/**
 * `RunStore.cancel`: RUN_FINISHED for a finished run, RUN_NOT_WAITING for one no longer as `expect` (both checked
 * against the run as written: the write's guard is the status and token read).
 */
export async function cancelRun(on: PgQueryable, runId: string, options: CancelOptions, clock: () => number): Promise<RunRecord> {
  const { actor, reason } = options;
  const why = reason === undefined || reason === "canceled" ? "" : `: ${reason}`;
  const errorMessage = `canceled${actor === undefined ? "" : ` by ${actor}`}${why}`;
  return guarded(on, runId, (current) => {
    // A run that finished since the caller looked (another process) is the caller's race, not a bug.
    if (isTerminal(current.status)) throw new UserInputError("RUN_FINISHED", `run ${runId} is already ${current.status}; nothing to cancel`);
    assertUnchanged(current, options.expect);
    return plan(current, "CANCELED", { actor, reason, errorCode: "CANCELED", errorMessage }, clock());
  });
}

/** Options of {@link resumeRun}, as `RunStore.resume` takes them. */
export interface ResumeOptions {
  resume?: unknown;
  actor?: string;
  reason?: string;
  expect?: ExpectedRunState;
  availableAt?: number;
}

/** `RunStore.resume`: a waiting run back to QUEUED, only while still as `expect` and within its wait TTL. */
export async function resumeRun(on: PgQueryable, runId: string, options: ResumeOptions, clock: () => number): Promise<RunRecord> {
  return guarded(on, runId, (current) => {
    assertUnchanged(current, options.expect);
    if (!isWaiting(current.status)) throw new IllegalTransitionError({ runId, from: current.status, to: "QUEUED" });
    // A wait past its TTL is over even if no sweep has marked it EXPIRED yet: it cannot be resumed.
    if (current.waitExpiresAt !== null && current.waitExpiresAt <= clock()) {
      throw new UserInputError("RUN_NOT_WAITING", `run ${runId}: its wait expired (TTL ${current.waitTtlMs ?? "?"} ms); nothing was applied`);
    }
    const { resume, actor, reason, availableAt } = options;
    return plan(current, "QUEUED", { resume, actor, reason, availableAt }, clock());
  });
}

/** `RunStore.expireWaitIfDue`: the run, first moved to EXPIRED if its wait has outlived its TTL. */
export async function expireWaitIfDueRun(on: PgQueryable, runId: string, clock: () => number): Promise<RunRecord> {
  return guarded(on, runId, (current) => (isWaitDue(current, clock()) ? plan(current, "EXPIRED", waitExpiry(current), clock()) : current));
}

/** Reads the run, plans a write (or returns the run unchanged), writes it; again while another writer wins the guard. */
async function guarded(
  on: PgQueryable, runId: string, decide: (current: RunRecord) => PgTransitionWrite | RunRecord,
): Promise<RunRecord> {
  for (let round = 0; round < WRITE_ROUNDS; round++) {
    const decided = decide(await getRun(on, runId));
    if (!("events" in decided)) return decided;
    const written = await writeTransition(on, decided);
    if (written !== undefined) return written;
  }
  throw new SystemError("INTERNAL", `run ${runId}: kept changing while a status change was being written`);
}
