/**
 * What `approve` and `reject` share: the flags that name a pending action (bound to its args hash) and who
 * decides, and deciding it. `approve --reject` and `reject` are one decision, so they share one path.
 * @module
 */
import { UserInputError } from "../errors.js";
import type { CommandContext, FlagSpec } from "./command.js";
import { parseJsonFlag } from "./json-flag.js";
import { printRun } from "./print-run.js";
import { withExistingRuntime } from "./runtime-context.js";

/** The flags of a decision on a pending action. */
export const DECISION_FLAGS: FlagSpec = {
  action: { type: "string", value: "ID", description: "The pending action to decide (its action_id, as agentrt status shows it)." },
  "args-hash": { type: "string", value: "HASH", description: "The action's args_hash: the decision holds only for exactly those arguments." },
  by: { type: "string", value: "NAME", description: "Who decides; the policy must name them. Default: the run's own user." },
  role: { type: "string", multiple: true, value: "ROLE", description: "A role of the decider, for policies that name roles." },
  reason: { type: "string", value: "TEXT", description: "Why; kept with the decision and, for a rejection, told to the model." },
  // Checked and stored here; a worker resumes the run (QUEUED until then).
  queue: { type: "boolean", default: false, description: "Check and store the decision only; a worker resumes the run (agentrt worker)." },
};

/** Decides one pending action of a waiting run and resumes it here (or queues it); prints the run. */
export async function decideAction(ctx: CommandContext, command: string, verdict: "approve" | "reject"): Promise<number> {
  const [runId, ...extra] = ctx.args;
  const actionId = ctx.flags.action as string | undefined;
  const argsHash = ctx.flags["args-hash"] as string | undefined;
  if (runId === undefined || extra.length > 0 || actionId === undefined || argsHash === undefined) {
    throw new UserInputError("BAD_INPUT", `usage: agentrt ${command} <run_id> --action <action_id> --args-hash <hash>`);
  }
  const editedArgs = parseEditArgs(ctx.flags["edit-args"] as string | undefined);
  const decision = {
    actionId, argsHash, ...(editedArgs === undefined ? {} : { editedArgs }),
    by: ctx.flags.by as string | undefined,
    roles: (ctx.flags.role as string[] | undefined) ?? [],
    reason: ctx.flags.reason as string | undefined,
    queue: ctx.flags.queue === true,
  };
  return withExistingRuntime(ctx, async (runtime) => {
    const view = verdict === "reject" ? await runtime.reject(runId, decision) : await runtime.approve(runId, decision);
    return printRun(ctx, view);
  });
}

/** `--edit-args`: a JSON object of arguments (with --reject the runtime refuses it, as every edit on a rejection). */
function parseEditArgs(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  const value = parseJsonFlag(raw, "--edit-args");
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UserInputError("BAD_INPUT", "--edit-args must be a JSON object of the tool's arguments");
  }
  return value as Record<string, unknown>;
}
