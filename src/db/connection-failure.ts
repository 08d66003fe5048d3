/**
 * Tells a database server that cannot be reached or whose connection dropped from other errors: the PostgreSQL
 * backend reports these as DB_UNREACHABLE and DB_CONNECTION_LOST (`postgres/pg-errors.ts`). Neither is the caller's
 * fault, and a later attempt on a fresh connection may succeed once the server answers again; SQLite never
 * raises them.
 * @module
 */
import { StorageError } from "../errors.js";

/** The codes of {@link connectionFailure}. */
export type ConnectionFailureCode = "DB_UNREACHABLE" | "DB_CONNECTION_LOST";

/** True for the stable codes of a server that cannot be reached or a connection that dropped. */
export function isConnectionFailureCode(code: unknown): code is ConnectionFailureCode {
  return code === "DB_UNREACHABLE" || code === "DB_CONNECTION_LOST";
}

/** The DB_UNREACHABLE or DB_CONNECTION_LOST {@link StorageError} that `error` is or wraps (a `cause`), else undefined. */
export function connectionFailure(error: unknown): StorageError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof StorageError && isConnectionFailureCode(current.code)) return current;
    current = current.cause;
  }
  return undefined;
}
