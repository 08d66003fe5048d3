import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun } from "../print-run.js";
import { withExistingRuntime } from "../runtime-context.js";

/** `agentrt input <run_id> --text TEXT`: answers the question of a WAITING_INPUT run and resumes it here. */
export const inputCommand: Command = {
  name: "input",
  summary: "Answer the question of a run waiting for input and resume it",
  usage: "agentrt input <run_id> --text TEXT [--by NAME] [--queue]",
  details: ["The run goes on with the text as what the graph's interrupt() returns."],
  flags: {
    text: { type: "string", value: "TEXT", description: "The answer to the run's question." },
    by: { type: "string", value: "NAME", description: "Who answers, kept with the answer. Default: the run's own user." },
    queue: { type: "boolean", default: false, description: "Check and store the answer only; a worker resumes the run (agentrt worker)." },
  },
  examples: ['agentrt input run_01J… --text "10086"'],
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
