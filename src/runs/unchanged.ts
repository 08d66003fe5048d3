/**
 * Optimistic checks for requests validated outside the transaction that
 * applies them (an approval is checked against the checkpoint first): the
 * run must still be in the state that was checked, else nothing is applied.
 * @module
 */
import { UserInputError } from "../errors.js";
import type { RunStatus } from "./lifecycle.js";
import type { RunRecord } from "./run-record.js";

/** The state a request was checked against: the status and the fencing token (bumped by every claim). */
export interface ExpectedRunState {
  status: RunStatus;
  fencingToken: number;
}

/** A run changed between the check of a request and its application (another approval, a cancel won the race). */
export class RunChangedError extends UserInputError {
  constructor(run: RunRecord, expected: ExpectedRunState) {
    super(
      "RUN_NOT_WAITING",
      `run ${run.runId} changed while the request was being checked (it is now ${run.status}); nothing was applied`,
      { details: { runId: run.runId, status: run.status, expected: expected.status } },
    );
  }
}

/** Throws {@link RunChangedError} unless `run` is still in the expected state; call inside the applying transaction. */
export function assertUnchanged(run: RunRecord, expected: ExpectedRunState | undefined): void {
  if (expected === undefined) return;
  if (run.status !== expected.status || run.fencingToken !== expected.fencingToken) throw new RunChangedError(run, expected);
}
