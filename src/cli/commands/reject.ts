import type { Command } from "../command.js";
import { DECISION_FLAGS, decideAction } from "../decide-action.js";

/** `agentrt reject <run_id>`: the same as `approve --reject`: the tool is not run, the model is told why. */
export const rejectCommand: Command = {
  name: "reject",
  summary: "Reject a pending action of a waiting run (the tool is not run; the model is told) and resume it",
  usage: "agentrt reject <run_id> --action <action_id> --args-hash <hash> [--by NAME] [--role ROLE]... [--reason TEXT] [--queue]",
  details: ["The same decision as agentrt approve --reject: same checks, output and exit codes."],
  flags: DECISION_FLAGS,
  examples: [
    'agentrt reject run_01J… --action act_89420f3b67f63aec --args-hash e49e9e19… --reason "not during business hours"',
  ],
  async run(ctx) {
    return decideAction(ctx, "reject", "reject");
  },
};
