/**
 * Who may cancel a run over HTTP (the cancel route, `multitask_strategy: "interrupt"`, deleting its thread,
 * cancel on disconnect): the same people who may decide it. A cancel drops the run's pending actions, so
 * letting anyone with a key cancel would let a caller the policy keeps from deciding stop the run anyway.
 * @module
 */
import type { PendingAction } from "../graph/approval.js";
import { isApproverAllowed } from "../policy/policy.js";
import type { RunRecord } from "../runs/index.js";
import type { RunRecords } from "../runtime/index.js";
import type { Caller } from "./auth.js";
import { HttpError } from "./http-error.js";
import type { ThreadStateReader } from "./thread-state.js";

/** The role (`user+admin:key` in AGENTRT_API_KEY) that may cancel any run. */
export const ADMIN_ROLE = "admin";

/** True when the caller is neither the run's owner nor an admin: its pending actions then decide. */
export function needsApproverCheck(run: RunRecord, caller: Caller): boolean {
  return caller.authenticated && caller.id !== run.userId && !caller.roles.includes(ADMIN_ROLE);
}

/**
 * The 403 refusing `caller` a cancel of `run`, or undefined when allowed: without keys (anonymous local use)
 * anyone; with keys the run's owner, a caller with role {@link ADMIN_ROLE}, or one the policy lets decide every
 * one of its `pending` actions (who could reject them all anyway).
 */
export function cancelRefusal(run: RunRecord, caller: Caller, pending: readonly PendingAction[]): HttpError | undefined {
  if (!needsApproverCheck(run, caller)) return undefined;
  const approver = { by: caller.id, roles: caller.roles };
  if (pending.length > 0 && pending.every((action) => isApproverAllowed(action.approvers, approver))) return undefined;
  return new HttpError(403, "APPROVER_NOT_ALLOWED", `${caller.id} may not cancel run ${run.runId}: only its owner ${run.userId}, an approver of its pending actions or role ${ADMIN_ROLE} may`, {
    details: { run_id: run.runId, by: caller.id, owner: run.userId },
  });
}

/**
 * {@link cancelRefusal} for the run as it is once its pending actions have been read: the read awaits, and a run
 * resumed, decided or re-claimed meanwhile is judged as it is now, not by the approvers it had.
 */
export async function cancelRefusalNow(
  deps: { runs: Pick<RunRecords, "get">; states: Pick<ThreadStateReader, "pending"> }, listed: RunRecord, caller: Caller,
): Promise<HttpError | undefined> {
  for (let run = listed; ;) {
    if (run.status !== "WAITING_APPROVAL" || !needsApproverCheck(run, caller)) return cancelRefusal(run, caller, []);
    const pending = await deps.states.pending(run.graphId, run.threadId);
    const now = await deps.runs.get(run.runId);
    if (now.status === run.status && now.fencingToken === run.fencingToken) return cancelRefusal(run, caller, pending);
    run = now;
  }
}
