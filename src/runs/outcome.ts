/**
 * What `execute` tells the worker when a run stops executing, and how that
 * becomes a fenced status change.
 * @module
 */
import { connectionFailure, storageFailure } from "../db/index.js";
import { AgentrtError, SystemError } from "../errors.js";
import { assertFence } from "./fence.js";
import type { RunLease } from "./lease.js";
import type { RunRecord } from "./run-record.js";
import { connectionRetryOutcome, storageRetryOutcome } from "./storage-retry.js";
import type { WithinTransaction } from "./within.js";

/** The result of executing a run, as a discriminated union on the next status. */
export type RunOutcome =
  | { status: "SUCCEEDED"; result?: unknown }
  | { status: "FAILED"; errorCode: string; errorMessage?: string; result?: unknown }
  | { status: "WAITING_INPUT" | "WAITING_APPROVAL"; pending?: unknown; reason?: string }
  | { status: "RETRYING"; delayMs?: number; errorCode?: string; errorMessage?: string; reason?: string; refundAttempt?: boolean }
  | { status: "CANCELED" | "EXPIRED"; errorCode?: string; errorMessage?: string; reason?: string };

/**
 * Records an outcome under the lease. `undefined` means execute already ended
 * the lease through `lease.transition`; if it did not, that is a bug and the
 * run FAILS with INTERNAL rather than staying RUNNING forever. `within`: see TransitionOptions.within.
 */
export async function applyOutcome(lease: RunLease, outcome: RunOutcome | void, within?: WithinTransaction): Promise<RunRecord> {
  if (outcome === undefined) {
    // Ended by execute through this lease: the record its transition wrote, not a read of the run again.
    if (lease.ended !== undefined) return lease.ended;
    const run = await lease.store.get(lease.runId);
    if (run.status !== "RUNNING" && run.fencingToken === lease.token) return run;
    assertFence(run, lease.token);
    const bug = new SystemError("INTERNAL", "execute returned no outcome and left the run RUNNING");
    return lease.transition("FAILED", { errorCode: bug.code, errorMessage: bug.message });
  }
  switch (outcome.status) {
    case "SUCCEEDED":
      return lease.transition("SUCCEEDED", { result: outcome.result, within });
    case "RETRYING":
      return lease.retry({ ...outcome, within });
    case "WAITING_INPUT":
    case "WAITING_APPROVAL":
      return lease.transition(outcome.status, { pending: outcome.pending, reason: outcome.reason, within });
    case "FAILED":
    case "CANCELED":
    case "EXPIRED":
      return lease.transition(outcome.status, { ...outcome, within });
  }
}

/**
 * The outcome of a run whose execution (attempt `attempts`) threw: RETRYING with a backoff for a full or failing
 * disk or a lost or unreachable PostgreSQL server, else FAILED with the error's code (RECURSION_LIMIT for LangGraph's recursion limit, INTERNAL for any other
 * foreign error). The one mapping, wherever the error was caught.
 */
export function outcomeOfError(error: unknown, attempts: number): RunOutcome {
  // A full or failing disk is not the run's fault: it goes on once there is room.
  const storage = storageFailure(error);
  if (storage !== undefined) return storageRetryOutcome(storage, attempts);
  // Nor is a lost server; what the lost connection was writing may or may not have committed, and the next attempt
  // starts from what did, as after a crash (checkpoints and the ledger make that safe).
  const lost = connectionFailure(error);
  if (lost !== undefined) return connectionRetryOutcome(lost, attempts);
  // An agentrt error's message is written to be shown whole.
  if (error instanceof AgentrtError) return { status: "FAILED", errorCode: error.code, errorMessage: error.message };
  // The run's own recursion limit (its config, default 100 supersteps), not a fault of agentrt's.
  // By name: a graph importing its own copy of @langchain/langgraph throws that copy's class.
  const errorCode = error instanceof Error && error.name === "GraphRecursionError" ? "RECURSION_LIMIT" : "INTERNAL";
  // A foreign message can run on with troubleshooting links or a stack: the run keeps its first line.
  const message = error instanceof Error ? error.message : String(error);
  return { status: "FAILED", errorCode, errorMessage: message.split("\n")[0] ?? message };
}
