import { existsSync } from "node:fs";
import { openDatabase } from "../../db/index.js";
import { packageVersion } from "../../version.js";
import type { Command } from "../command.js";

/** `agentrt info`: the database file and the schema version of each module in it. */
export const infoCommand: Command = {
  name: "info",
  summary: "Show agentrt's version and the schema versions stored in the database",
  usage: "agentrt info [--db PATH] [--json]",
  flags: {},
  examples: ["agentrt info", "agentrt info --db ./other.db --json"],
  async run(ctx) {
    const modules: Record<string, number> = {};
    const exists = existsSync(ctx.db);
    if (exists) {
      const db = openDatabase(ctx.db, { readonly: true, snapshot: true });
      try {
        const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'agentrt_schema'").get();
        if (table !== undefined) {
          for (const row of db.prepare("SELECT module, version FROM agentrt_schema ORDER BY module").all() as {
            module: string;
            version: number;
          }[]) {
            modules[row.module] = row.version;
          }
        }
      } finally {
        db.close();
      }
    }
    const info = { version: packageVersion(), db: ctx.db, exists, modules };
    if (ctx.json) {
      ctx.out(JSON.stringify(info));
    } else {
      ctx.out(`agentrt ${info.version}`);
      ctx.out(`database ${info.db}${exists ? "" : " (not created yet)"}`);
      for (const [module, version] of Object.entries(modules)) ctx.out(`  ${module}: schema v${version}`);
    }
    return 0;
  },
};
