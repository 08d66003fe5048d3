import { StorageError } from "../../src/errors.js";

/** Turns a raw SQLite error into a {@link StorageError} that names the file. */
export function storageError(file: string, action: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const text = `${file}: ${action} failed (${message})`;
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") return new StorageError("DB_CORRUPT", text, { cause: error });
  if (code === "SQLITE_READONLY" || code === "SQLITE_CANTOPEN" || code === "SQLITE_PERM") {
    return new StorageError("DB_READ_ONLY", text, { cause: error });
  }
  return new StorageError("DB_OPEN_FAILED", text, { cause: error });
}
