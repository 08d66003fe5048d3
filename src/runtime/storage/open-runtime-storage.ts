/**
 * Opens a runtime's storage for what `--db` / `Runtime.open({ db })` names: a SQLite file, or a PostgreSQL schema
 * for a `postgres://` URL (`AGENTRT_DATABASE_URL` when `db` is undefined; `Runtime.open` passes `./agentrt.db` then).
 * @module
 */
import { parseDatabaseTarget } from "../../db/index.js";
import { openPostgresStorage } from "./postgres-storage.js";
import type { RuntimeStorage } from "./runtime-storage.js";
import { openSqliteStorage } from "./sqlite-storage.js";

/** The storage `db` names; `mustExist` refuses a missing SQLite file (a PostgreSQL schema is created when missing). */
export function openRuntimeStorage(db: string | undefined, options: { mustExist?: boolean } = {}): RuntimeStorage {
  const target = parseDatabaseTarget(db);
  return target.kind === "postgres" ? openPostgresStorage(target) : openSqliteStorage(target.path, options);
}
