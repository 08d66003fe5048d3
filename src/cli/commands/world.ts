import { MEMORY_PATH, openDatabase, readVersion } from "../../db/index.js";
import { openWorld } from "../../testing/sim-open.js";
import { SIM_SCHEMA } from "../../testing/sim-schema.js";
import type { SimSnapshot } from "../../testing/sim-world.js";
import type { Command } from "../command.js";

/** `agentrt world`: what the simulated systems actually did (counts and state). */
export const worldCommand: Command = {
  name: "world",
  summary: "Show the simulated systems' state and how many times each side effect really happened",
  usage: "agentrt world [--json]",
  flags: {},
  async run(ctx) {
    // Reads what happened: a mistyped --db is refused (exit 2), not created empty; nothing is written, so a
    // read-only file works too. A file where no simulated system ran has no sim tables yet: an empty world.
    const memory = ctx.db === MEMORY_PATH || ctx.db === "";
    const db = openDatabase(ctx.db, memory ? { mustExist: true } : { readonly: true, snapshot: true });
    try {
      const empty = !memory && readVersion(db, SIM_SCHEMA.module) === 0;
      const snapshot: SimSnapshot = empty ? { calls: {}, failures: {}, systems: {} } : openWorld({ db }).snapshot();
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
