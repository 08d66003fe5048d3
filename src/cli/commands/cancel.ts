import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun } from "../print-run.js";
import { withExistingRuntime } from "../runtime-context.js";

/** `agentrt cancel <run_id>`: no new steps, in-flight tools aborted; side effects already done stay done and are listed. */
export const cancelCommand: Command = {
  name: "cancel",
  summary: "Cancel a run that has not finished (done side effects stay done and are listed)",
  usage: "agentrt cancel <run_id> [--by NAME] [--reason TEXT]",
  flags: {
    by: { type: "string", value: "NAME", description: "Who cancels, kept in the run's events. Not checked: whoever can write the file may cancel." },
    reason: { type: "string", value: "TEXT", description: "Why, kept in the run's events." },
  },
  examples: ['agentrt cancel run_01J… --by alice --reason "wrong service"'],
  async run(ctx) {
    const [runId, ...extra] = ctx.args;
    if (runId === undefined || extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt cancel <run_id>");
    return withExistingRuntime(ctx, async (runtime) => {
      // Waits (a few seconds at most) for calls in flight to report, so what is listed is what happened.
      const view = await runtime.cancelAndWait(runId, { by: ctx.flags.by as string | undefined, reason: ctx.flags.reason as string | undefined });
      // The side effects are printed with the run (they stay done).
      printRun(ctx, view);
      if (!ctx.json && view.side_effects.length === 0) ctx.out("  no side effects were performed");
      return 0;
    });
  },
};
