import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun, withExistingRuntime } from "../runtime-context.js";

/** `agentrt approve <run_id>`: decides one pending action, bound to its args hash, and resumes the run here. */
export const approveCommand: Command = {
  name: "approve",
  summary: "Approve (or --reject) a pending action of a waiting run and resume it",
  usage: "agentrt approve <run_id> --action <action_id> --args-hash <hash> [--edit-args JSON] [--by NAME] [--role ROLE] [--reject] [--reason TEXT] [--queue]",
  flags: {
    action: { type: "string" },
    "args-hash": { type: "string" },
    by: { type: "string" },
    role: { type: "string", multiple: true },
    reject: { type: "boolean", default: false },
    reason: { type: "string" },
    // Approve with these arguments instead: checked against the tool's schema and judged by policy again.
    "edit-args": { type: "string" },
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
    const editedArgs = parseEditArgs(ctx.flags["edit-args"] as string | undefined, ctx.flags.reject === true);
    const decision = {
      actionId, argsHash, ...(editedArgs === undefined ? {} : { editedArgs }),
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

/** `--edit-args`: a JSON object of arguments, with an approval only. */
function parseEditArgs(raw: string | undefined, reject: boolean): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  if (reject) throw new UserInputError("BAD_INPUT", "--edit-args approves with changed arguments: it cannot go with --reject");
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UserInputError("BAD_INPUT", `--edit-args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UserInputError("BAD_INPUT", "--edit-args must be a JSON object of the tool's arguments");
  }
  return value as Record<string, unknown>;
}
