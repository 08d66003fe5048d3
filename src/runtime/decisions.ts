/**
 * Decision, input and resume plumbing behind `Runtime.approve`, `Runtime.provideInput` and
 * queued resumes: each answer is checked against the run's live checkpoint before anything changes.
 * @module
 */
import { UserInputError } from "../errors.js";
import { assertOneDecisionPerAction, validateResume, readPendingActions, type ApprovalResume } from "../graph/approval.js";
import { approvalPolicyOf } from "../graph/foreign-policy.js";
import { checkForeignDecisions } from "./foreign-decisions.js";
import type { ExpectedRunState, RunRecord } from "../runs/index.js";
import type { ClaimDeps } from "./execute-and-record.js";
import type { GraphRegistry } from "./graph-registry.js";
import type { CommandResume } from "./command-resume.js";
import { readInputRequests, type InputResume } from "./input-resume.js";
import { toRunView, type RunView } from "./run-view.js";
import type { DecisionOptions } from "./runtime-options.js";
import { syncStateChanges } from "./state-changes.js";
import { tasksForCheck, type CheckedGraph } from "./state-check.js";

/** What the checks need from a `Runtime`: its stores, trace recorder and graph registry. */
export interface DecisionDeps extends Pick<ClaimDeps, "runs" | "trace" | "recorder"> {
  registry: GraphRegistry;
}

/** A checked resume and the run state it may only be applied to (a racing answer is refused, not dropped). */
export interface CheckedResume<R> {
  resume: R;
  expect: ExpectedRunState;
}

/** The run after the lazy wait-TTL check (an expired wait becomes EXPIRED here, with its trace). */
export async function currentRun(deps: DecisionDeps, runId: string): Promise<RunRecord> {
  const before = await deps.runs.get(runId);
  const run = await deps.runs.expireWaitIfDue(runId);
  if (run.status !== before.status) {
    await syncStateChanges(deps.runs, await deps.recorder(run), run);
    await deps.trace.flush();
  }
  return run;
}

/** A decision on one pending action as {@link checkDecisions} takes it: the wire form, `by` defaulting to the run's user. */
export type DecisionInput = Omit<ApprovalResume, "by"> & { by?: string };

/** A CLI-style decision ({@link DecisionOptions}) as a {@link DecisionInput}. */
export function decisionInput(decision: DecisionOptions, kind: "approve" | "reject"): DecisionInput {
  if (kind === "reject" && decision.editedArgs !== undefined) {
    throw new UserInputError("BAD_INPUT", "edited arguments come with an approval, not a rejection");
  }
  return {
    action_id: decision.actionId, args_hash: decision.argsHash, decision: decision.editedArgs === undefined ? kind : "edit",
    by: decision.by, roles: decision.roles ?? [],
    ...(decision.reason === undefined ? {} : { comment: decision.reason }),
    ...(decision.editedArgs === undefined ? {} : { edited_args: decision.editedArgs }),
  };
}

/**
 * Checks decisions (one per action) against the run's live pending actions, after the lazy wait-TTL check:
 * RUN_NOT_WAITING, BAD_INPUT, UNKNOWN_ACTION, ARGS_HASH_MISMATCH or APPROVER_NOT_ALLOWED otherwise; nothing changes.
 */
export async function checkDecisions(
  deps: DecisionDeps, runId: string, decisions: readonly DecisionInput[],
): Promise<CheckedResume<ApprovalResume[]>> {
  const run = await currentRun(deps, runId);
  if (run.status !== "WAITING_APPROVAL") {
    throw new UserInputError("RUN_NOT_WAITING", `run ${runId} is ${run.status}, not waiting for approval`);
  }
  if (decisions.length === 0) throw new UserInputError("BAD_INPUT", "no decision given");
  assertOneDecisionPerAction(decisions);
  const resume = decisions.map((d) => ({ ...d, by: d.by ?? run.userId, roles: d.roles ?? [] }));
  // Checked against the checkpoint before anything changes: a refused decision leaves the run waiting.
  const { graph, state } = await liveGraphState(deps, run);
  const pending = readPendingActions(state, { requester: run.userId, policy: approvalPolicyOf(graph) });
  const checked = resume.map((decision) => {
    const check = validateResume(pending, decision);
    if (!check.ok) throw check.error;
    return check;
  });
  // A foreign agent's interrupt: every one of its actions at once, edits judged again by its agentrt policy.
  checkForeignDecisions(graph, checked);
  // Applied only if the run is still in the wait that was checked (a racing approval or cancel: RUN_NOT_WAITING).
  return { resume, expect: { status: run.status, fencingToken: run.fencingToken } };
}

/**
 * Checks an answer for a WAITING_INPUT run against its live interrupt; nothing changes. An object keyed by the
 * interrupt's id (LangGraph's `command.resume` map) answers with the value under that key.
 */
export async function checkInput(
  deps: DecisionDeps, runId: string, value: unknown, by: string | undefined,
): Promise<CheckedResume<InputResume>> {
  const run = await currentRun(deps, runId);
  if (run.status !== "WAITING_INPUT") {
    throw new UserInputError("RUN_NOT_WAITING", `run ${runId} is ${run.status}, not waiting for input`);
  }
  if (typeof value === "string" && value.trim() === "") throw new UserInputError("BAD_INPUT", "the answer is empty");
  const request = readInputRequests(await liveState(deps, run))[0];
  if (request === undefined) {
    throw new UserInputError("RUN_NOT_WAITING", `run ${runId} has no open question in its checkpoint`);
  }
  const keyed = value !== null && typeof value === "object" && !Array.isArray(value) && request.interrupt_id in value;
  const answer = keyed ? (value as Record<string, unknown>)[request.interrupt_id] : value;
  const resume: InputResume = { kind: "input", interrupt_id: request.interrupt_id, value: answer, by: by ?? run.userId };
  return { resume, expect: { status: run.status, fencingToken: run.fencingToken } };
}

/** What a waiting run may be resumed with: decisions, an answer, or a LangGraph command. */
export type StoredResume = ApprovalResume[] | InputResume | CommandResume;

/**
 * Stores a checked resume and leaves the run QUEUED for a worker; `holdMs`: for that long only a claim by id
 * (`Runtime.start`, the process that will execute it) takes it. `note`: who resumed it and why, in its events.
 */
export async function queueResume(
  deps: DecisionDeps, runId: string, resume: StoredResume, expect?: ExpectedRunState, holdMs?: number, note?: { actor: string; reason: string },
): Promise<RunView> {
  let queued: RunRecord;
  try {
    queued = await deps.runs.resume(runId, { resume, expect, ...(holdMs === undefined ? {} : { availableAt: deps.runs.clock() + holdMs }), ...note });
  } catch (error) {
    // The wait's TTL passed since the check: record the expiry (with its trace), resume nothing.
    await currentRun(deps, runId);
    throw error;
  }
  await syncStateChanges(deps.runs, await deps.recorder(queued), queued);
  await deps.trace.flush();
  return toRunView(queued);
}

async function liveState(deps: DecisionDeps, run: RunRecord): Promise<{ tasks: never[] }> {
  return (await liveGraphState(deps, run)).state;
}

/** The run's graph and its thread's live tasks: a check of interrupts alone, which reads no message history. */
export async function liveGraphState(deps: DecisionDeps, run: RunRecord): Promise<{ graph: unknown; state: { tasks: never[] } }> {
  const graph = (await deps.registry.load(run.graphId)) as unknown as CheckedGraph;
  const { tasks } = await tasksForCheck(graph, { configurable: { thread_id: run.threadId } });
  return { graph, state: { tasks: tasks as never[] } };
}
