import { UserInputError } from "../../errors.js";
import { RUN_STATUSES, type RunStatus } from "../../runs/index.js";
import type { Command } from "../command.js";
import { renderTable } from "../text-table.js";
import { withRunSource } from "../runtime-context.js";
import { parseInteger } from "./run.js";

/** `agentrt runs [--status S]`: the runs in the database, newest first. */
export const runsCommand: Command = {
  name: "runs",
  summary: "List runs, newest first, optionally of one status",
  usage: "agentrt runs [--status STATUS] [--limit N]",
  flags: {
    status: { type: "string", value: "STATUS", choices: RUN_STATUSES, description: "Only runs in this status." },
    limit: { type: "string", value: "N", description: "At most N runs, the newest. Default: 100." },
  },
  examples: ["agentrt runs", "agentrt runs --status waiting_approval --json"],
  async run(ctx) {
    if (ctx.args.length > 0) throw new UserInputError("BAD_INPUT", "usage: agentrt runs [--status STATUS]");
    // Checked (in any case) and spelled as stored by the command-line parser.
    const status = ctx.flags.status as RunStatus | undefined;
    const limit = parseInteger(ctx.flags.limit as string | undefined, "--limit") ?? 100;
    if (limit < 1) throw new UserInputError("BAD_INPUT", "--limit must be at least 1");
    return withRunSource(ctx, (reader) => reader.hasOverdueWait(), async (source) => {
      const runs = await source.list({ status, limit });
      if (ctx.json) {
        ctx.out(JSON.stringify({ runs }));
      } else {
        if (runs.length === 0) ctx.out(status === undefined ? "no runs" : `no ${status} runs`);
        else for (const line of renderTable(["RUN", "STATUS", "GRAPH", "USER", "CREATED"], runs.map((r) => [r.run_id, r.status, r.graph, r.user, r.created_at]))) ctx.out(line);
      }
      return 0;
    });
  },
};
