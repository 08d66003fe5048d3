import { UserInputError } from "../../errors.js";
import { isRunStatus } from "../../runs/index.js";
import type { Command } from "../command.js";
import { withRunSource } from "../runtime-context.js";
import { parseInteger } from "./run.js";

/** `agentrt runs [--status S]`: the runs in the database, newest first. */
export const runsCommand: Command = {
  name: "runs",
  summary: "List runs, newest first, optionally of one status",
  usage: "agentrt runs [--status STATUS] [--limit N]",
  flags: { status: { type: "string" }, limit: { type: "string" } },
  async run(ctx) {
    if (ctx.args.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt runs [--status STATUS]");
    const status = ctx.flags.status as string | undefined;
    if (status !== undefined && !isRunStatus(status)) {
      throw new UserInputError("BAD_INPUT", `--status must be one of QUEUED, RUNNING, WAITING_INPUT, WAITING_APPROVAL, RETRYING, SUCCEEDED, FAILED, CANCELED, EXPIRED (got "${status}")`);
    }
    const limit = parseInteger(ctx.flags.limit as string | undefined, "--limit") ?? 100;
    if (limit < 1) throw new UserInputError("BAD_INPUT", "--limit must be at least 1");
    return withRunSource(ctx, (reader) => reader.hasOverdueWait(), (source) => {
      const runs = source.list({ status: status as never, limit });
      if (ctx.json) {
        ctx.out(JSON.stringify({ runs }));
      } else {
        for (const run of runs) ctx.out(`${run.run_id}  ${run.status.padEnd(16)}  ${run.graph.padEnd(14)}  ${run.user}  ${run.created_at}`);
        if (runs.length === 0) ctx.out("no runs");
      }
      return 0;
    });
  },
};
