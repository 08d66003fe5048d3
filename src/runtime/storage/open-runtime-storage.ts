/**
 * Opens a runtime's storage for what `--db` / `Runtime.open({ db })` names: a SQLite file, or a PostgreSQL schema
 * for a `postgres://` URL (`AGENTRT_DATABASE_URL` when nothing is named).
 * @module
 */
import { parseDatabaseTarget } from "../../db/index.js";
import type { RuntimeStorage } from "./runtime-storage.js";
import { openSqliteStorage } from "./sqlite-storage.js";

/** The storage `db` names; `mustExist` refuses a missing SQLite file (a PostgreSQL schema is created when missing). */
export function openRuntimeStorage(db: string | undefined, options: { mustExist?: boolean } = {}): RuntimeStorage {
  const target = parseDatabaseTarget(db);
  // PostgreSQL until its run store lands: openDatabase refuses the URL with a one-line reason.
  return openSqliteStorage(target.kind === "postgres" ? (db ?? "") : target.path, options);
}
