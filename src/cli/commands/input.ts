import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun, withExistingRuntime } from "../runtime-context.js";

/** `agentrt input <run_id> --text TEXT`: answers the question of a WAITING_INPUT run and resumes it here. */
export const inputCommand: Command = {
  name: "input",
  summary: "Answer the question of a run waiting for input and resume it",
  usage: "agentrt input <run_id> --text TEXT [--by NAME] [--queue]",
  flags: {
    text: { type: "string" },
    by: { type: "string" },
    queue: { type: "boolean", default: false },
  },
  async run(ctx) {
    const [runId, ...extra] = ctx.args;
    const text = ctx.flags.text as string | undefined;
    if (runId === undefined || extra.length > 0 || text === undefined) {
      throw new UserInputError("BAD_INPUT", "usage: agentrt input <run_id> --text TEXT");
    }
    return withExistingRuntime(ctx, async (runtime) => {
      const view = await runtime.provideInput(runId, { text, by: ctx.flags.by as string | undefined, queue: ctx.flags.queue === true });
      return printRun(ctx, view);
    });
  },
};
