/**
 * Executes one claimed run: heartbeats its lease and watches it (a cancel or
 * takeover elsewhere aborts it within about a second) while `execute` runs,
 * and records the outcome with fenced writes. Every execution path goes
 * through it: the worker loop for each run, and the runtime for a run it
 * executes inline (submit, start, approve, resume), with the same guarantees.
 * @module
 */
import { connectionFailure } from "../db/index.js";
import { SystemError } from "../errors.js";
import { transientStorageFailure } from "./claim-refusal.js";
import { LeaseLostError } from "./errors.js";
import type { RunLease } from "./lease.js";
import { LeaseExpiry } from "./lease-expiry.js";
import { watchLease } from "./lease-watch.js";
import { applyOutcome, outcomeOfError, type RunOutcome } from "./outcome.js";
import type { RunRecord } from "./run-record.js";
import type { RunSignals } from "./run-signals.js";
import type { ClaimedRun } from "./scheduler.js";
import { writeWhileStorageRefuses } from "./storage-retry.js";

/** Runs one claimed run; resolve with its outcome, or nothing if it already ended the lease itself. */
export type ExecuteRun = (run: RunRecord, lease: RunLease) => Promise<RunOutcome | void>;

/** Options of {@link executeClaimed}. */
export interface ExecuteClaimedOptions {
  /** Heartbeat period. @default a third of the lease's duration */
  heartbeatMs?: number;
  /** Unexpected errors (not lost leases) go here. @default one line on stderr */
  onError?: (error: unknown, run: RunRecord | undefined) => void;
  /** Word of status changes from any process (PostgreSQL): a cancel elsewhere stops the run at once (see lease-watch.ts). */
  signals?: RunSignals;
}

/** How one execution ended. */
export type ExecutionResult =
  /** The outcome was recorded; `run` is the record after it. */
  | { kind: "recorded"; run: RunRecord }
  /** The lease was lost (canceled, taken over, expired) before an outcome could be recorded. */
  | { kind: "lost"; error: LeaseLostError }
  /** The run was handed back unfinished because its lease was aborted with {@link WorkerStoppingError}. */
  | { kind: "released"; run: RunRecord }
  /** Recording failed for another reason (reported to onError); the lease will expire and the run be retried. */
  | { kind: "error"; error: unknown };

/** The reason a worker aborts its own runs when it stops; such runs are released, not failed. */
export class WorkerStoppingError extends SystemError {
  constructor(workerId: string) {
    super("CANCELED", `worker ${workerId} is stopping`);
  }
}

/**
 * Executes a claimed run under its lease: heartbeats every `heartbeatMs` and
 * reads its status every second (a lost lease aborts `lease.signal`), maps a thrown error to its outcome
 * ({@link outcomeOfError}: a full or failing disk to RETRYING with backoff) and records it, trying again while the disk refuses that write or the server is away, as long as the lease lasts.
 * @example
 * const claimed = await scheduler.claimRun(runId, { workerId: "cli", leaseMs: 30_000, resume: decision });
 * if (claimed) await executeClaimed(claimed, execute);
 */
export async function executeClaimed(
  claimed: ClaimedRun,
  execute: ExecuteRun,
  options: ExecuteClaimedOptions = {},
): Promise<ExecutionResult> {
  const { run, lease } = claimed;
  const onError = options.onError ?? reportToStderr;
  const heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(lease.leaseMs / 3));
  let refused = false;
  let beating = false;
  const expiry = new LeaseExpiry(lease, run.status);
  const heartbeat = setInterval(() => {
    // A beat still under way (a slow database) is not doubled; if it has not come back by the lease's expiry, the run stops.
    if (beating) {
      expiry.arm();
      return;
    }
    beating = true;
    lease.renew().then(
      () => {
        refused = false;
        expiry.disarm();
      },
      (error: unknown) => {
        // A lost lease has already aborted the signal; anything else (a busy file) is retried next beat.
        if (error instanceof LeaseLostError) return;
        // An unreachable server or a lost connection: the lease holds until it would expire, then the run stops.
        if (connectionFailure(error) !== undefined) expiry.arm();
        // A full disk or a lost server refuses every beat until it passes: said once, not every beat.
        const failure = transientStorageFailure(error);
        if (failure !== undefined && refused) return;
        refused = failure !== undefined;
        onError(failure ?? error, run);
      },
    ).finally(() => {
      beating = false;
    });
  }, heartbeatMs);
  const unwatch = watchLease(lease, options.signals);
  let ended: Ended;
  try {
    ended = { threw: false, outcome: await execute(run, lease) };
  } catch (error) {
    ended = { threw: true, error };
  } finally {
    clearInterval(heartbeat);
    expiry.close();
    unwatch();
  }
  return await record(lease, ended, run, onError);
}

type Ended = { threw: false; outcome: RunOutcome | void } | { threw: true; error: unknown };

// An outcome that was returned is recorded even if the worker is stopping; a
// throw caused by the worker stopping hands the run back instead of failing it.
async function record(
  lease: RunLease,
  ended: Ended,
  run: RunRecord,
  onError: (error: unknown, run: RunRecord | undefined) => void,
): Promise<ExecutionResult> {
  try {
    const reason: unknown = lease.signal.reason;
    if (ended.threw && reason instanceof WorkerStoppingError) {
      return { kind: "released", run: await lease.release(reason.message) };
    }
    if (ended.threw && reason instanceof LeaseLostError) throw reason;
    const outcome = ended.threw ? outcomeOfError(ended.error, run.attempts) : ended.outcome;
    return { kind: "recorded", run: await writeWhileStorageRefuses(lease, () => applyOutcome(lease, outcome)) };
  } catch (error) {
    if (error instanceof LeaseLostError) return { kind: "lost", error };
    onError(error, run);
    return { kind: "error", error };
  }
}

/** Default error sink: one line on stderr. */
export function reportToStderr(error: unknown, run: RunRecord | undefined): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`agentrt worker${run === undefined ? "" : ` (run ${run.runId})`}: ${message}\n`);
}
