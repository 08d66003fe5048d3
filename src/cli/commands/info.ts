import { existsSync } from "node:fs";
import { displayDatabase, openDatabase, parseDatabaseTarget, type PostgresTarget } from "../../db/index.js";
import { PostgresDatabase, postgresSchemaExists } from "../../db/postgres/index.js";
import { packageVersion } from "../../version.js";
import type { Command } from "../command.js";

/** What `agentrt info` reports: `server` and `schema` only on PostgreSQL. */
interface Info {
  version: string;
  /** `--db` as given, a URL's password masked. */
  db: string;
  backend: "sqlite" | "postgres";
  /** `user@host:port/database` (PostgreSQL). */
  server?: string;
  /** The schema agentrt's tables live in (PostgreSQL). */
  schema?: string;
  /** Whether the file (SQLite) or the schema (PostgreSQL) exists; info never creates it. */
  exists: boolean;
  /** Each module's schema version, from the `agentrt_schema` table. */
  modules: Record<string, number>;
}

/** `agentrt info`: the database (file, or PostgreSQL server and schema) and the schema version of each module in it. */
export const infoCommand: Command = {
  name: "info",
  summary: "Show agentrt's version and the schema versions stored in the database",
  usage: "agentrt info [--db PATH|URL] [--json]",
  flags: {},
  examples: ["agentrt info", "agentrt info --db ./other.db --json", "agentrt info --db 'postgres://user@host/db?schema=agentrt'"],
  async run(ctx) {
    const target = parseDatabaseTarget(ctx.db);
    const found = target.kind === "sqlite" ? sqliteModules(target.path) : await postgresModules(target);
    const info: Info = {
      version: packageVersion(),
      db: displayDatabase(ctx.db),
      backend: target.kind,
      ...(target.kind === "postgres" ? { server: target.server, schema: target.schema } : {}),
      ...found,
    };
    if (ctx.json) {
      ctx.out(JSON.stringify(info));
    } else {
      ctx.out(`agentrt ${info.version}`);
      ctx.out(`database ${info.db}${info.exists ? "" : " (not created yet)"}`);
      if (target.kind === "postgres") ctx.out(`  PostgreSQL server ${target.server}, schema ${target.schema}`);
      for (const [module, version] of Object.entries(info.modules)) ctx.out(`  ${module}: schema v${version}`);
    }
    return 0;
  },
};

type Found = Pick<Info, "exists" | "modules">;

function sqliteModules(path: string): Found {
  const modules: Record<string, number> = {};
  const exists = existsSync(path);
  if (!exists) return { exists, modules };
  const db = openDatabase(path, { readonly: true, snapshot: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'agentrt_schema'").get();
    if (table !== undefined) {
      for (const row of db.prepare("SELECT module, version FROM agentrt_schema ORDER BY module").all() as { module: string; version: number }[]) {
        modules[row.module] = row.version;
      }
    }
  } finally {
    db.close();
  }
  return { exists, modules };
}

/** The schema's module versions, read without creating the schema or any table. */
async function postgresModules(target: PostgresTarget): Promise<Found> {
  const modules: Record<string, number> = {};
  const db = new PostgresDatabase(target, { maxConnections: 1 });
  try {
    if (!(await postgresSchemaExists(db))) return { exists: false, modules };
    const table = await db.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [`${db.schema}.agentrt_schema`]);
    if (table.rows[0]?.present === true) {
      const rows = await db.query<{ module: string; version: number }>(`SELECT module, version FROM agentrt_schema ORDER BY module COLLATE "C"`);
      for (const row of rows.rows) modules[row.module] = row.version;
    }
    return { exists: true, modules };
  } finally {
    await db.close();
  }
}
