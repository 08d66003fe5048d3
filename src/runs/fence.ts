/**
 * The fencing check: a lease holder's token is valid only while it is the
 * run's current token and the run is RUNNING.
 * @module
 */
import { LeaseLostError, type LeaseLossReason } from "./errors.js";
import type { RunRecord } from "./run-record.js";

/**
 * Throws LeaseLostError unless `fence` is the run's current token on a RUNNING
 * run, or on a RETRYING run whose lease is still held (its holder backs off in-process).
 */
export function assertFence(run: Pick<RunRecord, "runId" | "status" | "fencingToken" | "lease">, fence: number): void {
  if (run.fencingToken === fence && (run.status === "RUNNING" || (run.status === "RETRYING" && run.lease !== null))) return;
  throw new LeaseLostError({ runId: run.runId, token: fence, reason: lossReason(run, fence), status: run.status });
}

function lossReason(run: Pick<RunRecord, "status" | "fencingToken">, fence: number): LeaseLossReason {
  if (run.fencingToken !== fence) return "taken-over";
  if (run.status === "CANCELED") return "canceled";
  if (run.status === "EXPIRED") return "deadline-expired";
  if (run.status === "RETRYING" || run.status === "QUEUED") return "lease-expired";
  return "finished";
}
