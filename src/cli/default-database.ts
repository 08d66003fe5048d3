import { DEFAULT_SQLITE_PATH } from "../db/index.js";

/** `--db` when not given: AGENTRT_DATABASE_URL, else the SQLite file in the working directory. */
export function defaultDatabase(env: NodeJS.ProcessEnv = process.env): string {
  const url = env.AGENTRT_DATABASE_URL;
  return url === undefined || url === "" ? DEFAULT_SQLITE_PATH : url;
}
