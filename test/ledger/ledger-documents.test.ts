import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { ToolError } from "../../src/errors.js";
import { SqliteToolLedger } from "../../src/ledger/sqlite-ledger.js";

const open = () => {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), "agentrt-ledger-doc-")), "ledger.db"));
  return { db, ledger: SqliteToolLedger.open(db) };
};
const begin = async (ledger: SqliteToolLedger) =>
  (await ledger.begin({ runId: "run_1", toolCallId: "call_1", actionVersion: 1, tool: "send_message", argsHash: "sha256:a", idempotent: false })).key;

describe("the ledger's error_json document", async () => {
  it("is written with its format version and read back without it", async () => {
    const { db, ledger } = open();
    const key = await begin(ledger);
    await ledger.fail(key, new ToolError("TOOL_FAILED", "the mail server said no"));
    const raw = db.prepare("SELECT error_json FROM tool_ledger").get() as { error_json: string };
    expect(JSON.parse(raw.error_json)).toEqual({ $v: 1, name: "ToolError", message: "the mail server said no", code: "TOOL_FAILED" });
    expect((await ledger.get(key))?.error).toEqual({ name: "ToolError", message: "the mail server said no", code: "TOOL_FAILED" });
  });

  it("written before versions (version 0) is read by its own schema; a newer version is refused", async () => {
    const { db, ledger } = open();
    const key = await begin(ledger);
    db.prepare("UPDATE tool_ledger SET status = 'failed', error_json = ?").run('{"name":"Error","message":"timeout"}');
    expect((await ledger.get(key))?.error).toEqual({ name: "Error", message: "timeout" });
    db.prepare("UPDATE tool_ledger SET error_json = ?").run('{"$v":7,"name":"Error","message":"timeout"}');
    await expect(ledger.get(key)).rejects.toThrow(expect.objectContaining({ code: "DB_SCHEMA_TOO_NEW", details: expect.objectContaining({ column: "error_json", version: 7 }) }));
  });
});
