/**
 * What a new run does on a thread that has unfinished runs (`multitask_strategy`), as LangGraph's server does:
 * only queued and running runs count. A run waiting for an answer (WAITING_APPROVAL / WAITING_INPUT) is
 * superseded by the new input — canceled, its pending actions not performed — unless the caller asks to hold
 * it (`ifWaiting: "reject"`, the stricter hold: THREAD_BUSY while it waits). The supersede holds only while the run
 * still waits as listed (`expect`): one an approval moved on meanwhile is then queued or running, and counts as such
 * (see create-run.ts). Then "reject" refuses while a run
 * is queued or running; "enqueue" queues the new run behind them (runs of a thread execute in creation order);
 * "interrupt" cancels them first (a running one stops within a second, its later checkpoint writes refused by
 * its lost lease). "rollback" is refused before this (unsupportedOption).
 * @module
 */
import { UserInputError } from "../errors.js";
import { isWaiting, type ExpectedRunState, type RunRecord } from "../runs/index.js";

/** What a new run does on a thread with unfinished runs (the API's `multitask_strategy`, "rollback" excepted). */
export type MultitaskStrategy = "reject" | "interrupt" | "enqueue";

/**
 * What new input does to a run of the thread that waits for an answer: "supersede" cancels it (LangGraph's
 * server: an interrupted run does not hold its thread), "reject" refuses the new run with THREAD_BUSY.
 */
export type IfWaiting = "supersede" | "reject";

/** The reason a superseded run is canceled with: what new input did, and what of it will not happen. */
export function supersededReason(run: RunRecord): string {
  const pending = Array.isArray(run.pending) ? (run.pending as { tool?: unknown; action_id?: unknown; interrupt_id?: unknown }[]) : [];
  const text = (value: unknown) => (typeof value === "string" ? value : "?");
  const what = run.status === "WAITING_APPROVAL"
    ? `pending actions not performed: ${pending.map((p) => `${text(p.tool)} (${text(p.action_id)})`).join(", ") || "none"}`
    : `its question left unanswered${pending.length > 0 ? ` (${pending.map((p) => text(p.interrupt_id)).join(", ")})` : ""}`;
  return `superseded by new input on its thread; ${what}`;
}

/**
 * Makes room for a new run on `threadId` per `strategy` and `ifWaiting`; returns the runs an enqueued run waits
 * for (if one of them later stops to wait for an answer, the queued run waits until it is answered or canceled).
 * Refuses (THREAD_BUSY) before `cancel` is called for any; `cancel` cancels one run as the caller (one that
 * finished since it was listed is left alone) — a superseded one only while it is still as `expect`.
 */
export function makeRoom(
  threadId: string, active: readonly RunRecord[], strategy: MultitaskStrategy,
  cancel: (runId: string, reason: string, expect?: ExpectedRunState) => void, ifWaiting: IfWaiting = "supersede",
): string[] {
  if (strategy === "interrupt") {
    for (const run of active) cancel(run.runId, "interrupted by a new run on its thread (multitask_strategy interrupt)");
    return [];
  }
  const waiting = active.filter((r) => isWaiting(r.status));
  const busy = active.filter((r) => !isWaiting(r.status));
  if (ifWaiting === "reject" && waiting.length > 0) {
    throw busyError(threadId, waiting, "it waits for an answer and if_waiting is reject: resume or cancel it, or use multitask_strategy interrupt");
  }
  if (strategy === "reject" && busy.length > 0) throw busyError(threadId, busy, "wait for it or cancel it, or use multitask_strategy enqueue or interrupt");
  for (const run of waiting) cancel(run.runId, supersededReason(run), { status: run.status, fencingToken: run.fencingToken });
  return busy.map((r) => r.runId);
}

function busyError(threadId: string, runs: readonly RunRecord[], hint: string): UserInputError {
  const list = runs.map((r) => `${r.runId} (${r.status})`).join(", ");
  return new UserInputError("THREAD_BUSY", `thread ${threadId} has an unfinished run: ${list}; ${hint}`);
}
