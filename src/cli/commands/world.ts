import { displayDatabase, MEMORY_PATH } from "../../db/index.js";
import { readWorldSnapshot } from "../../testing/read-world.js";
import { openWorld } from "../../testing/sim-open.js";
import type { Command, CommandContext } from "../command.js";
import { READ_SQLITE, withCommandDatabase } from "../command-database.js";
import { renderWorld } from "../world-tables.js";

/** `agentrt world`: what the simulated systems actually did (counts and state); `--reset` starts them over. */
export const worldCommand: Command = {
  name: "world",
  summary: "Show the simulated systems' state and how many times each side effect really happened",
  usage: "agentrt world [--reset] [--json]",
  details: [
    "The scenario graphs' tools act on simulated systems kept in --db. After one walkthrough the payments deploy is",
    "rolled back, so ops_rollback finds nothing to do; --reset puts every system back to its seed and it pauses again.",
  ],
  flags: {
    reset: { type: "boolean", default: false, description: "Forget every call and state change, so the systems start from their seed again; runs are kept." },
  },
  examples: ["agentrt world", "agentrt world --json", "agentrt world --reset"],
  async run(ctx) {
    if (ctx.flags.reset === true) return reset(ctx);
    // Reads what happened: a mistyped --db is refused (exit 2), not created empty; nothing is written, so a
    // read-only file (or a read-only PostgreSQL role) works too. Where no simulated system ran: an empty world.
    const memory = ctx.db === MEMORY_PATH || ctx.db === "";
    const snapshot = await withCommandDatabase(ctx.db, memory ? { mustExist: true } : READ_SQLITE, readWorldSnapshot);
    if (ctx.json) ctx.out(JSON.stringify(snapshot));
    else for (const line of renderWorld(snapshot)) ctx.out(line);
    return 0;
  },
};

/** Resets the simulated world of an existing database (a missing one is refused, exit 2) and prints it, now empty. */
async function reset(ctx: CommandContext): Promise<number> {
  return withCommandDatabase(ctx.db, { mustExist: true }, async (db) => {
    const world = openWorld({ db });
    await world.reset();
    if (ctx.json) ctx.out(JSON.stringify(await world.snapshot()));
    else ctx.out(`the simulated world in ${displayDatabase(ctx.db)} is reset: every system starts from its seed at its next call (runs and traces are kept)`);
    return 0;
  });
}
