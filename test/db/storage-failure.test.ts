// A full or failing disk is told from other SQLite errors, also when wrapped; the server answers it 507 / 503.
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase, storageFailure } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";
import { errorResponse } from "../../src/server/http-error.js";
import { LedgerWriteError } from "../../src/ledger/call.js";

/** A real SQLITE_FULL: a connection whose file may not grow past its current pages. */
function fullDiskError(): unknown {
  const db = openDatabase(":memory:");
  db.exec("CREATE TABLE t (b BLOB)");
  db.pragma(`max_page_count = ${Number(db.pragma("page_count", { simple: true }))}`);
  try {
    db.prepare("INSERT INTO t (b) VALUES (zeroblob(100000))").run();
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error("the insert did not fail");
}

describe("storageFailure", () => {
  it("is STORAGE_FULL for SQLITE_FULL, raw or as the cause of a ledger write", () => {
    const raw = fullDiskError();
    expect(raw).toMatchObject({ code: "SQLITE_FULL" });
    expect(storageFailure(raw)).toMatchObject({ code: "STORAGE_FULL", message: expect.stringMatching(/^database or disk is full: free space/) });
    expect(storageFailure(new LedgerWriteError("record the result", raw))).toBeInstanceOf(StorageError);
    expect(storageFailure(new LedgerWriteError("record the result", raw))?.code).toBe("STORAGE_FULL");
  });

  it("is STORAGE_IO_ERROR for SQLite's I/O errors and nothing for other errors", () => {
    expect(storageFailure(new Database.SqliteError("disk I/O error", "SQLITE_IOERR_WRITE"))?.code).toBe("STORAGE_IO_ERROR");
    expect(storageFailure(new Database.SqliteError("no such table: x", "SQLITE_ERROR"))).toBeUndefined();
    expect(storageFailure(new Error("boom"))).toBeUndefined();
    expect(storageFailure(undefined)).toBeUndefined();
  });

  it("is STORAGE_FULL for PostgreSQL's disk_full (53100) and STORAGE_IO_ERROR for its io_error (58030), nothing for other SQLSTATEs", () => {
    const serverError = (message: string, code: string) => Object.assign(new pg.DatabaseError(message, 0, "error"), { code });
    const full = storageFailure(serverError("could not extend file \"base/16384/16385\": No space left on device", "53100"));
    expect(full).toMatchObject({ code: "STORAGE_FULL", message: expect.stringMatching(/No space left on device \(SQLSTATE 53100\): free space/) });
    expect(errorResponse(full).status).toBe(507);
    expect(storageFailure(new LedgerWriteError("record the result", serverError("could not write block", "58030")))?.code).toBe("STORAGE_IO_ERROR");
    expect(storageFailure(serverError("duplicate key value violates unique constraint", "23505"))).toBeUndefined();
  });

  it("is answered 507 STORAGE_FULL and 503 STORAGE_IO_ERROR over HTTP, not 500 INTERNAL", () => {
    expect(errorResponse(fullDiskError())).toMatchObject({ status: 507, body: { code: "STORAGE_FULL" } });
    expect(errorResponse(new LedgerWriteError("record the intent", fullDiskError()))).toMatchObject({ status: 507, body: { code: "STORAGE_FULL" } });
    expect(errorResponse(new Database.SqliteError("disk I/O error", "SQLITE_IOERR_WRITE"))).toMatchObject({ status: 503, body: { code: "STORAGE_IO_ERROR" } });
  });
});
