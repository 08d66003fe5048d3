import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun, withExistingRuntime } from "../runtime-context.js";

/** `agentrt status <run_id>`: the same JSON as `run`. */
export const statusCommand: Command = {
  name: "status",
  summary: "Show a run: status, pending approvals or question, result",
  usage: "agentrt status <run_id>",
  flags: {},
  async run(ctx) {
    const [runId, ...extra] = ctx.args;
    if (runId === undefined || extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt status <run_id>");
    return withExistingRuntime(ctx, async (runtime) => printRun(ctx, runtime.get(runId)));
  },
};
