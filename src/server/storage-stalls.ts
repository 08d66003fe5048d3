/**
 * Runs the disk stopped (full, or failing), as the server's waiters need to know: a waiter answers with the
 * storage error (STORAGE_FULL 507, STORAGE_IO_ERROR 503) instead of waiting for a disk that may stay full.
 * @module
 */
import { isStorageFailureCode, type StorageFailureCode } from "../db/index.js";
import { StorageError } from "../errors.js";
import { isTerminal, isWaiting, type RunRecord } from "../runs/index.js";
import type { RunRecords } from "../runtime/index.js";

/** The disk refused a write of one execution of a run (see the runtime's `storage_failed` event). */
export interface StorageStall {
  fencingToken: number;
  code: StorageFailureCode;
  message: string;
}

/** How long past its due time a run RETRYING after a storage failure may stay unclaimed before a new waiter is told. */
const RETRY_OVERDUE_MS = 5000;

/** Executions (here or in a worker process) the disk stopped, until their run is seen to move on. */
export class StorageStalls {
  private readonly stalls = new Map<string, StorageStall>();

  constructor(private readonly runs: Pick<RunRecords, "events" | "now">) {}

  /** The executing process announced that the disk refused a write of the run's execution with `fencingToken`. */
  record(runId: string, stall: StorageStall): void {
    this.stalls.set(runId, { fencingToken: stall.fencingToken, code: stall.code, message: stall.message });
  }

  /** The run's status changed since: it says more than the stall. */
  forget(runId: string): void {
    this.stalls.delete(runId);
  }

  /**
   * Throws the storage error when the disk stopped the run's current execution (announced), or when the run went
   * RETRYING for that reason while a waiter waiting `since` waited, or its retry is overdue: no process could claim
   * it, so the disk likely still refuses. A waiter that comes after such a RETRYING, before its retry is due, waits.
   */
  async assertNotStalled(run: RunRecord, since: number): Promise<void> {
    let stall = this.stalls.get(run.runId);
    // A later claim (a higher token) or a rest means the run moved on since.
    if (stall !== undefined && (stall.fencingToken !== run.fencingToken || isTerminal(run.status) || isWaiting(run.status))) {
      this.stalls.delete(run.runId);
      stall = undefined;
    }
    // Its last move, not its error code: a run's error code outlives the attempt that set it.
    const last = stall === undefined && run.status === "RETRYING" && run.lease === null ? (await this.runs.events(run.runId)).at(-1) : undefined;
    if (last?.to === "RETRYING" && isStorageFailureCode(last.errorCode) && (last.at >= since || run.availableAt + RETRY_OVERDUE_MS <= this.runs.now())) {
      stall = { fencingToken: run.fencingToken, code: last.errorCode, message: run.errorMessage ?? "" };
    }
    if (stall === undefined) return;
    throw new StorageError(
      stall.code,
      `run ${run.runId} stopped on its storage: ${stall.message}; it is retried once the disk has room (status: GET /threads/${run.threadId}/runs/${run.runId})`,
    );
  }
}
