import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun, withRuntime } from "../runtime-context.js";

/** `agentrt cancel <run_id>`: no new steps; side effects already done stay done. */
export const cancelCommand: Command = {
  name: "cancel",
  summary: "Cancel a run that has not finished (done side effects stay done)",
  usage: "agentrt cancel <run_id> [--by NAME] [--reason TEXT]",
  flags: { by: { type: "string" }, reason: { type: "string" } },
  async run(ctx) {
    const [runId, ...extra] = ctx.args;
    if (runId === undefined || extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt cancel <run_id>");
    return withRuntime(ctx, async (runtime) => {
      const view = runtime.cancel(runId, { by: ctx.flags.by as string | undefined, reason: ctx.flags.reason as string | undefined });
      printRun(ctx, view);
      return 0;
    });
  },
};
