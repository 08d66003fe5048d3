import type { Command } from "../command.js";
import { DECISION_FLAGS, decideAction } from "../decide-action.js";

/** `agentrt approve <run_id>`: decides one pending action, bound to its args hash, and resumes the run here. */
export const approveCommand: Command = {
  name: "approve",
  summary: "Approve (or --reject) a pending action of a waiting run and resume it",
  usage: "agentrt approve <run_id> --action <action_id> --args-hash <hash> [--edit-args JSON] [--by NAME] [--role ROLE]... [--reject] [--reason TEXT] [--queue]",
  details: ["A waiting run's output (agentrt status <run_id>) prints this command with its action id and args hash filled in."],
  flags: {
    ...DECISION_FLAGS,
    reject: { type: "boolean", default: false, description: "Reject instead of approving, as agentrt reject does." },
    "edit-args": {
      type: "string", value: "JSON",
      description: "Approve with these arguments instead of the model's: checked against the tool's schema and judged by policy again.",
    },
  },
  examples: [
    "agentrt approve run_01J… --action act_89420f3b67f63aec --args-hash e49e9e19…",
    "agentrt approve run_01J… --action act_89420f3b67f63aec --args-hash e49e9e19… --by bob --role sre --queue",
    "agentrt approve run_01J… --action act_89420f3b67f63aec --args-hash e49e9e19… --edit-args '{\"service\":\"payments\",\"target_revision\":\"rev-183\"}'",
  ],
  async run(ctx) {
    return decideAction(ctx, "approve", ctx.flags.reject === true ? "reject" : "approve");
  },
};
