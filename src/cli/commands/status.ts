import { UserInputError } from "../../errors.js";
import type { Command } from "../command.js";
import { printRun } from "../print-run.js";
import { withRunSource } from "../runtime-context.js";

/** `agentrt status <run_id>`: the same JSON as `run`. */
export const statusCommand: Command = {
  name: "status",
  summary: "Show a run: status, pending approvals or question, result",
  usage: "agentrt status <run_id>",
  details: ["With --json: the same object as agentrt run prints. Exit 1 for a run that ended FAILED, EXPIRED or CANCELED."],
  flags: {},
  examples: ["agentrt status run_01J…", "agentrt status run_01J… --json"],
  async run(ctx) {
    const [runId, ...extra] = ctx.args;
    if (runId === undefined || extra.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt status <run_id>");
    // A read: works on a read-only file; the lazy wait-TTL check records an expiry when the file allows it.
    return withRunSource(ctx, (reader) => reader.hasOverdueWait(runId), async (runs) => printRun(ctx, await runs.get(runId)));
  },
};
