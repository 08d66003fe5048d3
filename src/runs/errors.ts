/**
 * Errors raised by the run store, the scheduler and the worker.
 * @module
 */
import { AgentrtError, SystemError, UserInputError } from "../errors.js";
import type { RunStatus } from "./lifecycle.js";

/** A transition outside the lifecycle table was attempted: a bug in the caller. */
export class IllegalTransitionError extends SystemError {
  /** Status the run was in. */
  readonly from: RunStatus;
  /** Status that was asked for. */
  readonly to: RunStatus;

  constructor(options: { runId: string | undefined; from: RunStatus; to: RunStatus }) {
    const subject = options.runId === undefined ? "run" : `run ${options.runId}`;
    super("ILLEGAL_TRANSITION", `${subject}: illegal transition ${options.from} → ${options.to}`, {
      details: { runId: options.runId, from: options.from, to: options.to },
    });
    this.from = options.from;
    this.to = options.to;
  }
}

/** No run has this id. */
export class UnknownRunError extends UserInputError {
  constructor(runId: string) {
    super("UNKNOWN_RUN", `no run with id ${runId}`, { details: { runId } });
  }
}

/** Why a lease holder may no longer write. */
export type LeaseLossReason = "taken-over" | "lease-expired" | "canceled" | "deadline-expired" | "finished";

/**
 * The caller's lease on a run is gone (taken over, expired and recovered, or
 * the run was canceled/expired meanwhile): it must stop writing to the run.
 */
export class LeaseLostError extends AgentrtError {
  /** Why the lease is gone. */
  readonly reason: LeaseLossReason;
  /** The run's status when the loss was noticed. */
  readonly status: RunStatus | undefined;

  constructor(options: { runId: string; token: number; reason: LeaseLossReason; status: RunStatus | undefined }) {
    super("LEASE_LOST", `run ${options.runId}: lease with fencing token ${options.token} lost (${options.reason}, run is ${options.status ?? "gone"})`, {
      details: { ...options },
    });
    this.reason = options.reason;
    this.status = options.status;
  }
}
