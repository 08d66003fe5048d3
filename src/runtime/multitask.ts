/**
 * What a new run does on a thread that has unfinished runs (`multitask_strategy`):
 * "reject" refuses; "enqueue" queues it behind them — runs of a thread execute in
 * creation order — unless one waits for an answer (it would hold the queue until
 * then); "interrupt" cancels them first (a waiting run's pending actions are
 * dropped; a running one stops within a second, its later checkpoint writes
 * refused by its lost lease). "rollback" is refused before this (unsupportedOption).
 * @module
 */
import { UserInputError } from "../errors.js";
import { isWaiting, type RunRecord } from "../runs/index.js";

/** What a new run does on a thread with unfinished runs (the API's `multitask_strategy`, "rollback" excepted). */
export type MultitaskStrategy = "reject" | "interrupt" | "enqueue";

/**
 * Makes room for a new run on `threadId` per `strategy`; returns the runs an enqueued run waits for (if one of
 * them later stops to wait for an answer, the queued run waits until it is answered or canceled). `cancel`
 * cancels one run as the caller (one that finished since it was listed is left alone).
 */
export function makeRoom(threadId: string, active: readonly RunRecord[], strategy: MultitaskStrategy, cancel: (runId: string, reason: string) => void): string[] {
  if (strategy === "interrupt") {
    for (const run of active) cancel(run.runId, "interrupted by a new run on its thread (multitask_strategy interrupt)");
    return [];
  }
  if (strategy === "enqueue" && !active.some((r) => isWaiting(r.status))) return active.map((r) => r.runId);
  const busy = active.map((r) => `${r.runId} (${r.status})`).join(", ");
  const hint = strategy === "enqueue" ? "it waits for an answer: resume or cancel it, or use multitask_strategy interrupt" : "resume or cancel it first, or use multitask_strategy enqueue or interrupt";
  throw new UserInputError("THREAD_BUSY", `thread ${threadId} has an unfinished run: ${busy}; ${hint}`);
}
