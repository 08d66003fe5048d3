/**
 * Finding the simulated world a tool call should use: the run database agentrt
 * hands the tool, or — under a foreign host such as LangGraph Studio's dev
 * server — the file named by `AGENTRT_DB` (default `./agentrt.db`).
 * @module
 */
import { resolve } from "node:path";
import { MEMORY_PATH, openDatabase, type SqliteDatabase } from "../db/index.js";
import { SimWorld } from "./sim-world.js";

/** Options of {@link openWorld}. */
export interface OpenWorldOptions {
  /** An open run database; takes precedence over `path`. @default undefined */
  db?: SqliteDatabase;
  /** Database file to open. @default env.AGENTRT_DB ?? "./agentrt.db" */
  path?: string;
  /**
   * Environment for the default path and for the world's latency and faults;
   * the first open of a connection or file fixes it for the cached world. @default process.env
   */
  env?: NodeJS.ProcessEnv;
}

const byConnection = new WeakMap<SqliteDatabase, SimWorld>();
const byPath = new Map<string, SimWorld>();

/**
 * The simulated world on a connection or file, cached so repeated tool calls
 * share one connection per file.
 * @example
 * const world = openWorld({ path: "./agentrt.db" });
 * console.log(world.snapshot().calls);
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
  const raw = options.path ?? env.AGENTRT_DB ?? "./agentrt.db";
  const key = raw === MEMORY_PATH || raw === "" ? MEMORY_PATH : resolve(raw);
  const cached = byPath.get(key);
  if (cached !== undefined && cached.open) return cached;
  const world = SimWorld.open(openDatabase(key), { env });
  byPath.set(key, world);
  return world;
}

/** Closes the connections {@link openWorld} opened by path (not those handed in). */
export async function closeWorlds(): Promise<void> {
  for (const world of byPath.values()) if (world.db.open) world.db.close();
  byPath.clear();
}
