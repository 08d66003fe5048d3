/**
 * The run lifecycle: every status a run can be in and the only transitions
 * between them. Any other transition is a bug and throws.
 * @module
 */
import { IllegalTransitionError } from "./errors.js";

/** Every status a run can be in, in lifecycle order. */
export const RUN_STATUSES = [
  "QUEUED",
  "RUNNING",
  "WAITING_INPUT",
  "WAITING_APPROVAL",
  "RETRYING",
  "SUCCEEDED",
  "FAILED",
  "CANCELED",
  "EXPIRED",
] as const;

/** The status of a run; see {@link RUN_TRANSITIONS} for the allowed moves. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run never leaves. */
export type TerminalRunStatus = "SUCCEEDED" | "FAILED" | "CANCELED" | "EXPIRED";

/** Statuses in which the run waits for a person; neither success nor failure. */
export type WaitingRunStatus = "WAITING_INPUT" | "WAITING_APPROVAL";

/**
 * The allowed transitions, keyed by the current status. RUNNING is entered
 * only by claiming a lease; a waiting run resumes either straight into
 * RUNNING (claimed by the resuming process) or into QUEUED (left for a worker).
 * RUNNING → RETRYING also covers a lost lease: the run is offered again.
 */
export const RUN_TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  QUEUED: ["RUNNING", "CANCELED", "EXPIRED"],
  RUNNING: ["WAITING_INPUT", "WAITING_APPROVAL", "RETRYING", "SUCCEEDED", "FAILED", "CANCELED", "EXPIRED"],
  WAITING_INPUT: ["RUNNING", "QUEUED", "CANCELED", "EXPIRED"],
  WAITING_APPROVAL: ["RUNNING", "QUEUED", "CANCELED", "EXPIRED"],
  // FAILED: the holder of an in-process backoff stopped heartbeating on its last attempt (ATTEMPTS_EXHAUSTED).
  RETRYING: ["RUNNING", "FAILED", "CANCELED", "EXPIRED"],
  SUCCEEDED: [],
  FAILED: [],
  CANCELED: [],
  EXPIRED: [],
};

/** Statuses a worker may claim (once due). */
export const CLAIMABLE_STATUSES: readonly RunStatus[] = ["QUEUED", "RETRYING"];

/** True when `to` is an allowed next status after `from`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return RUN_TRANSITIONS[from].includes(to);
}

/** Throws {@link IllegalTransitionError} unless `from → to` is in the table. */
export function assertTransition(from: RunStatus, to: RunStatus, runId?: string): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError({ runId, from, to });
}

/** True for SUCCEEDED, FAILED, CANCELED and EXPIRED. */
export function isTerminal(status: RunStatus): status is TerminalRunStatus {
  return RUN_TRANSITIONS[status].length === 0;
}

/** True for WAITING_INPUT and WAITING_APPROVAL. */
export function isWaiting(status: RunStatus): status is WaitingRunStatus {
  return status === "WAITING_INPUT" || status === "WAITING_APPROVAL";
}

/** True when `value` is one of {@link RUN_STATUSES}. */
export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === "string" && (RUN_STATUSES as readonly string[]).includes(value);
}
