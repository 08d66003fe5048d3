import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun, withExistingRuntime } from "../runtime-context.js";

/** `agentrt approve <run_id>`: decides one pending action, bound to its args hash, and resumes the run here. */
export const approveCommand: Command = {
  name: "approve",
  summary: "Approve (or --reject) a pending action of a waiting run and resume it",
  usage: "agentrt approve <run_id> --action <action_id> --args-hash <hash> [--by NAME] [--role ROLE] [--reject] [--reason TEXT] [--queue]",
  flags: {
    action: { type: "string" },
    "args-hash": { type: "string" },
    by: { type: "string" },
    role: { type: "string", multiple: true },
    reject: { type: "boolean", default: false },
    reason: { type: "string" },
    // Checked and stored here; a worker resumes the run (QUEUED until then).
    queue: { type: "boolean", default: false },
  },
  async run(ctx) {
    const [runId, ...extra] = ctx.args;
    const actionId = ctx.flags.action as string | undefined;
    const argsHash = ctx.flags["args-hash"] as string | undefined;
    if (runId === undefined || extra.length > 0 || actionId === undefined || argsHash === undefined) {
      throw new UserInputError("BAD_INPUT", "usage: agentrt approve <run_id> --action <action_id> --args-hash <hash>");
    }
    const decision = {
      actionId, argsHash,
      by: ctx.flags.by as string | undefined,
      roles: (ctx.flags.role as string[] | undefined) ?? [],
      reason: ctx.flags.reason as string | undefined,
      queue: ctx.flags.queue === true,
    };
    return withExistingRuntime(ctx, async (runtime) => {
      const view = ctx.flags.reject === true ? await runtime.reject(runId, decision) : await runtime.approve(runId, decision);
      return printRun(ctx, view);
    });
  },
};
