// The ledger conformance suite on SQLite (a fresh file per test), and what only SQLite has: the guard runs
// synchronously inside BEGIN IMMEDIATE, and the file's schema version.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase, type SqliteDatabase } from "../../src/db/index.js";
import { StorageError } from "../../src/errors.js";
import type { LedgerBeginInput } from "../../src/ledger/ledger.js";
import { SqliteToolLedger } from "../../src/ledger/sqlite-ledger.js";
import { describeLedgerConformance } from "./conformance/ledger.js";

const dbPath = () => join(mkdtempSync(join(tmpdir(), "agentrt-ledger-")), "ledger.db");

describeLedgerConformance("SQLite", async () => {
  const path = dbPath();
  const dbs: SqliteDatabase[] = [openDatabase(path)];
  return {
    ledger: SqliteToolLedger.open(dbs[0]!),
    async another() {
      const db = openDatabase(path);
      dbs.push(db);
      return SqliteToolLedger.open(db);
    },
    async close() {
      for (const db of dbs) db.close();
    },
  };
});

const call = (overrides: Partial<LedgerBeginInput> = {}): LedgerBeginInput => ({
  runId: "run_1", toolCallId: "call_1", actionVersion: 1, tool: "rollback_deployment", argsHash: "sha256:abc", idempotent: true, ...overrides,
});

describe("SqliteToolLedger", () => {
  it("runs the guard synchronously in the intent's transaction: an async guard is refused and writes nothing", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    let seen: unknown;
    await ledger.begin(call({ toolCallId: "sync", guard: (tx) => { seen = tx.backend === "sqlite" && tx.db.inTransaction; } }));
    expect(seen).toBe(true);
    await expect(ledger.begin(call({ guard: async () => undefined }))).rejects.toMatchObject({ code: "INTERNAL" });
    expect((await ledger.list("run_1")).map((e) => e.toolCallId)).toEqual(["sync"]);
  });

  it("refuses a file whose ledger schema is newer", () => {
    const path = dbPath();
    const db = openDatabase(path);
    SqliteToolLedger.open(db);
    db.prepare("UPDATE agentrt_schema SET version = 42 WHERE module = 'ledger'").run();
    expect(() => SqliteToolLedger.open(openDatabase(path))).toThrow(StorageError);
  });
});
