/**
 * LangGraph's `Command({ goto, update })` sent to a run that waits for an answer (what agent-chat-ui's "Mark as
 * Resolved" sends: `goto: "__end__"`). It is checked like a decision — on a run waiting for approval, only someone
 * allowed to decide every pending action may send it — and stored with the run as a {@link CommandResume}, applied
 * by whoever executes the run next:
 * - `goto: "__end__"` ends the wait: the thread's pending tasks are cleared (LangGraph's `updateState(config, null,
 *   "__end__")`), so the pending actions are never performed; the run then finishes with the state it has.
 * - any other `goto` / `update` is sent as LangGraph's Command: the update is applied, the named nodes run, and the
 *   paused tasks run again, so a pending approval asks again — nothing it guards runs without its approval.
 * @module
 */
import { Command, END } from "@langchain/langgraph";
import { UserInputError } from "../errors.js";
import { isApproverAllowed } from "../policy/policy.js";
import { readPendingActions } from "../graph/approval.js";
import { approvalPolicyOf } from "../graph/foreign-policy.js";
import { currentRun, liveGraphState, type CheckedResume, type DecisionDeps } from "./decisions.js";
import { readInputRequests } from "./input-resume.js";

/** `command.goto` / `command.update` of a run request, as the runtime takes them. */
export interface GraphCommand {
  /** Nodes to run next; `["__end__"]` ends the wait. @default [] */
  goto?: string[];
  /** State update applied as the named channels' writes (LangGraph's `Command.update`). @default none */
  update?: Record<string, unknown> | [string, unknown][];
}

/** A command stored with a waiting run until it is applied. */
export interface CommandResume extends GraphCommand {
  kind: "command";
  /** Who sent it (the decider). */
  by: string;
  /** The interrupts it answers: applied only while one of them is still live (never twice after a crash). */
  interrupt_ids: string[];
  /** For `goto: "__end__"` on a run waiting for approval: the actions that will not be performed. */
  not_performed?: { action_id: string; tool: string }[];
}

/** True for a stored {@link CommandResume}. */
export function isCommandResume(value: unknown): value is CommandResume {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "command";
}

/** True when `goto` ends the run (`"__end__"`, alone). */
export function endsRun(goto: readonly string[] | undefined): boolean {
  return goto !== undefined && goto.length > 0 && goto.every((node) => node === END);
}

/**
 * Checks a command for a waiting run, as {@link checkDecisions} checks decisions (after the lazy wait-TTL check):
 * RUN_NOT_WAITING unless it waits, APPROVER_NOT_ALLOWED unless `decider` may decide every pending action, BAD_INPUT
 * for `__end__` beside other nodes; nothing changes.
 */
export async function checkCommand(
  deps: DecisionDeps, runId: string, command: GraphCommand, decider: { by?: string; roles?: readonly string[] },
): Promise<CheckedResume<CommandResume>> {
  const run = await currentRun(deps, runId);
  if (run.status !== "WAITING_APPROVAL" && run.status !== "WAITING_INPUT") {
    throw new UserInputError("RUN_NOT_WAITING", `run ${runId} is ${run.status}, not waiting for an answer`);
  }
  const goto = command.goto ?? [];
  if (goto.includes(END) && !endsRun(goto)) throw new UserInputError("BAD_INPUT", `command.goto "${END}" ends the run: it goes alone, not beside other nodes`);
  const by = decider.by ?? run.userId;
  const { graph, state } = await liveGraphState(deps, run);
  let interruptIds: string[];
  let notPerformed: CommandResume["not_performed"];
  if (run.status === "WAITING_APPROVAL") {
    const pending = readPendingActions(state, { requester: run.userId, policy: approvalPolicyOf(graph) });
    // The same authorization as a decision: a command moves the run past its pending actions.
    for (const action of pending) {
      if (!isApproverAllowed(action.approvers, { by, roles: [...(decider.roles ?? [])] })) {
        throw new UserInputError("APPROVER_NOT_ALLOWED", `${by} may not decide ${action.action_id}; allowed: ${action.approvers.join(", ")}`, {
          details: { action_id: action.action_id, by, approvers: action.approvers },
        });
      }
    }
    interruptIds = [...new Set(pending.map((p) => p.interrupt_id))];
    if (endsRun(goto)) notPerformed = pending.map((p) => ({ action_id: p.action_id, tool: p.tool }));
  } else {
    interruptIds = readInputRequests(state).map((r) => r.interrupt_id);
  }
  if (interruptIds.length === 0) throw new UserInputError("RUN_NOT_WAITING", `run ${runId} has no open interrupt in its checkpoint`);
  const resume: CommandResume = {
    kind: "command", ...(goto.length > 0 ? { goto } : {}), ...(command.update === undefined ? {} : { update: command.update }),
    by, interrupt_ids: interruptIds, ...(notPerformed === undefined ? {} : { not_performed: notPerformed }),
  };
  return { resume, expect: { status: run.status, fencingToken: run.fencingToken } };
}

/** The line a command is recorded with in the run's events: who, what, and for `__end__` what is not performed. */
export function commandNote(resume: CommandResume): string {
  const parts = [
    ...(resume.goto === undefined ? [] : [`goto ${resume.goto.join(", ")}`]),
    ...(resume.update === undefined ? [] : ["update"]),
  ];
  const skipped = resume.not_performed === undefined ? "" : `; pending actions not performed: ${resume.not_performed.map((a) => `${a.tool} (${a.action_id})`).join(", ") || "none"}`;
  return `command ${parts.join(" + ")} by ${resume.by}${skipped}`;
}

/**
 * How the executor applies a stored command to the live state: undefined once none of its interrupts is live
 * (applied before a crash: continue from the checkpoint); else whether to clear the pending tasks first, and the
 * graph input after that.
 */
export function commandInput(resume: CommandResume, liveInterruptIds: ReadonlySet<string>): { clear: boolean; input: unknown } | undefined {
  if (!resume.interrupt_ids.some((id) => liveInterruptIds.has(id))) return undefined;
  const update = resume.update === undefined ? {} : { update: resume.update };
  if (endsRun(resume.goto)) return { clear: true, input: resume.update === undefined ? null : new Command(update) };
  return { clear: false, input: new Command({ ...update, ...(resume.goto === undefined ? {} : { goto: resume.goto }) }) };
}
