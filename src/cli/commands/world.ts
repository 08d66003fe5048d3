import { openDatabase } from "../../db/index.js";
import { openWorld } from "../../testing/sim-open.js";
import type { Command } from "../command.js";

/** `agentrt world`: what the simulated systems actually did (counts and state). */
export const worldCommand: Command = {
  name: "world",
  summary: "Show the simulated systems' state and how many times each side effect really happened",
  usage: "agentrt world [--json]",
  flags: {},
  async run(ctx) {
    // Reads what happened: a mistyped --db is refused (exit 2), not created empty.
    const db = openDatabase(ctx.db, { mustExist: true });
    const world = openWorld({ db });
    try {
      const snapshot = world.snapshot();
      if (ctx.json) {
        ctx.out(JSON.stringify(snapshot));
      } else {
        ctx.out("calls performed by the simulated systems:");
        for (const [tool, count] of Object.entries(snapshot.calls)) ctx.out(`  ${tool}: ${count}`);
        for (const [system, state] of Object.entries(snapshot.systems)) ctx.out(`${system}: ${JSON.stringify(state)}`);
      }
      return 0;
    } finally {
      db.close();
    }
  },
};
