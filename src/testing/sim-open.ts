/**
 * Finding the simulated world a tool call should use: the run database agentrt hands the tool, or — under a
 * foreign host such as LangGraph Studio's dev server — the database named by `AGENTRT_DB`, else
 * `AGENTRT_DATABASE_URL`, else `./agentrt.db`: a SQLite file or a `postgres://` URL (its `schema` parameter
 * naming the schema), so the world follows the runtime's database and `agentrt world` shows what a run did.
 * @module
 */
import { resolve } from "node:path";
import { MEMORY_PATH, openDatabase, parseDatabaseTarget, type SqliteDatabase } from "../db/index.js";
import { PostgresDatabase } from "../db/postgres/index.js";
import { SimWorld } from "./sim-world.js";

/** Options of {@link openWorld}. */
export interface OpenWorldOptions {
  /** An open run database (SQLite or PostgreSQL); takes precedence over `path`. @default undefined */
  db?: SqliteDatabase | PostgresDatabase;
  /** Database file or `postgres://` URL to open. @default env.AGENTRT_DB ?? env.AGENTRT_DATABASE_URL ?? "./agentrt.db" */
  path?: string;
  /**
   * Environment for the default path and for the world's latency and faults;
   * the first open of a connection or database fixes it for the cached world. @default process.env
   */
  env?: NodeJS.ProcessEnv;
}

const byConnection = new WeakMap<SqliteDatabase | PostgresDatabase, SimWorld>();
const byPath = new Map<string, SimWorld>();

/**
 * The simulated world on a connection or database, cached so repeated tool calls
 * share one connection (a pool on PostgreSQL) per database.
 * @example
 * const world = openWorld({ path: "./agentrt.db" });
 * console.log((await world.snapshot()).calls);
 */
export function openWorld(options: OpenWorldOptions = {}): SimWorld {
  const env = options.env ?? process.env;
  if (options.db !== undefined) {
    let world = byConnection.get(options.db);
    if (world === undefined) {
      world = SimWorld.open(options.db, { env });
      byConnection.set(options.db, world);
    }
    return world;
  }
  const target = parseDatabaseTarget(options.path ?? env.AGENTRT_DB, env);
  const key = target.kind === "postgres"
    ? `${target.connectionString}#${target.schema}`
    : target.path === MEMORY_PATH || target.path === "" ? MEMORY_PATH : resolve(target.path);
  const cached = byPath.get(key);
  if (cached !== undefined && cached.open) return cached;
  const world = SimWorld.open(target.kind === "postgres" ? new PostgresDatabase(target) : openDatabase(key), { env });
  byPath.set(key, world);
  return world;
}

/** Closes the connections {@link openWorld} opened by path or URL (not those handed in). */
export async function closeWorlds(): Promise<void> {
  const worlds = [...byPath.values()];
  byPath.clear();
  // Every world is closed even when one fails to; the first failure is reported.
  const closed = await Promise.allSettled(worlds.map(async ({ db }) => {
    if (db instanceof PostgresDatabase) await db.close();
    else if (db.open) db.close();
  }));
  const failed = closed.find((result) => result.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}
