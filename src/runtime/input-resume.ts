/**
 * Input waits: a graph paused by a plain LangGraph `interrupt()` (not an
 * approval) waits for a person's answer. The answer is stored with the run
 * as an {@link InputResume} and sent back as `Command({ resume })` keyed by
 * the interrupt id, so only the question it answers is resumed.
 * @module
 */
import { Command } from "@langchain/langgraph";
import { isApprovalRequest } from "../graph/approval.js";
import { isForeignHitlRequest } from "../graph/foreign-hitl.js";
import { questionOf, type InputRequest } from "./input-requests.js";

export { questionOf, type InputRequest } from "./input-requests.js";

/** An answer to an input request, as stored in the run's `resume` until the graph consumes it. */
export interface InputResume {
  kind: "input";
  interrupt_id: string;
  /** The value `interrupt()` returns in the graph. */
  value: unknown;
  /** Who answered. */
  by: string;
}

type SnapshotTask = { result?: unknown; interrupts: { id?: string; value?: unknown }[] };

/** The live input requests of a thread, read from `graph.getState(config).tasks`. */
export function readInputRequests(snapshot: { tasks: readonly SnapshotTask[] }): InputRequest[] {
  // Only an unfinished task's latest interrupt is live; approvals are read by readPendingActions.
  return snapshot.tasks
    .filter((t) => t.result === undefined)
    .flatMap((t) => t.interrupts.slice(-1))
    .filter((i) => i.id !== undefined && !isApprovalRequest(i.value) && !isForeignHitlRequest(i.value))
    .map((i) => ({ interrupt_id: i.id as string, question: questionOf(i.value), value: i.value }));
}

/** True for a stored answer to an input request. */
export function isInputResume(value: unknown): value is InputResume {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "input" &&
    typeof (value as { interrupt_id?: unknown }).interrupt_id === "string";
}

/**
 * The `Command` resuming the interrupt a stored answer is for, or undefined
 * when that interrupt is no longer live (the answer was consumed before a crash:
 * it must not be sent again).
 */
export function inputCommand(resume: unknown, snapshot: { tasks: readonly SnapshotTask[] }): Command | undefined {
  if (!isInputResume(resume)) return undefined;
  if (!readInputRequests(snapshot).some((r) => r.interrupt_id === resume.interrupt_id)) return undefined;
  return new Command({ resume: { [resume.interrupt_id]: resume.value } });
}
