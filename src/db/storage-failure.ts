/**
 * Tells a full or failing disk from other database errors. SQLite reports ENOSPC as SQLITE_FULL ("database or
 * disk is full") and other failed reads and writes (EIO, a file size limit, a quota) as SQLITE_IOERR_*; neither
 * is the caller's fault nor a bug here, and a later attempt may succeed once an operator frees space. PostgreSQL
 * says the same of its own disk with SQLSTATE 53100 (disk_full) and 58030 (io_error).
 * @module
 */
import { StorageError } from "../errors.js";

/** The codes of {@link storageFailure}: a full disk, or a read or write the disk refused. */
export type StorageFailureCode = "STORAGE_FULL" | "STORAGE_IO_ERROR";

/** True for the stable codes a full or failing disk is reported with. */
export function isStorageFailureCode(code: unknown): code is StorageFailureCode {
  return code === "STORAGE_FULL" || code === "STORAGE_IO_ERROR";
}

/**
 * The {@link StorageError} (STORAGE_FULL or STORAGE_IO_ERROR) that `error` means when it, or an error it wraps
 * (a ledger write's `cause`), is SQLite's or PostgreSQL's full or failing disk; undefined for anything else.
 */
export function storageFailure(error: unknown): StorageError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (current instanceof StorageError && isStorageFailureCode(code)) return current;
    const message = current instanceof Error ? current.message : "SQLite error";
    // A -shm file that cannot grow (a WAL file opened afresh on a full disk) is a full disk as well.
    if (code === "SQLITE_IOERR_SHMSIZE") {
      return new StorageError("STORAGE_FULL", `${message} (${code}): the database's shared-memory file could not grow; free space on its disk`, { cause: error });
    }
    if (code === "SQLITE_FULL") {
      return new StorageError("STORAGE_FULL", `${message}: free space on the database's disk; writes succeed again once there is room`, { cause: error });
    }
    if (code === "53100") {
      return new StorageError("STORAGE_FULL", `${message} (SQLSTATE ${code}): free space on the PostgreSQL server's disk; writes succeed again once there is room`, { cause: error });
    }
    if (code === "58030") {
      return new StorageError("STORAGE_IO_ERROR", `${message} (SQLSTATE ${code}): the PostgreSQL server's disk refused a read or write`, { cause: error });
    }
    if (typeof code === "string" && code.startsWith("SQLITE_IOERR")) {
      return new StorageError("STORAGE_IO_ERROR", `${message} (${code}): the disk refused a read or write (a failing disk, a file size limit or a quota)`, { cause: error });
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}
