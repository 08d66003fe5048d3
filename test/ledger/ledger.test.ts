import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { StorageError, ToolError } from "../../src/errors.js";
import { ledgerKey, type LedgerBeginInput } from "../../src/ledger/ledger.js";
import { SqliteToolLedger } from "../../src/ledger/sqlite-ledger.js";

const dbPath = () => join(mkdtempSync(join(tmpdir(), "agentrt-ledger-")), "ledger.db");

const call = (overrides: Partial<LedgerBeginInput> = {}): LedgerBeginInput => ({
  runId: "run_1",
  toolCallId: "call_1",
  actionVersion: 1,
  tool: "rollback_deployment",
  argsHash: "sha256:abc",
  idempotent: true,
  ...overrides,
});

/** Simulates an external system that counts how often it was really called. */
function fakeTool() {
  const calls: string[] = [];
  return {
    calls,
    invoke(key: string) {
      calls.push(key);
      return { result: { ok: true, n: calls.length }, externalOperationId: `op_${calls.length}` };
    },
  };
}

describe("SqliteToolLedger", () => {
  it("new: writes an intent with the key the tool receives", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const begun = ledger.begin(call());
    expect(begun).toEqual({ kind: "new", key: "run_1:call_1:1", attempt: 1 });
    expect(ledgerKey({ runId: "run_1", toolCallId: "call_1" })).toBe(begun.key);
    expect(ledger.get(begun.key)).toMatchObject({ status: "pending", attempts: 1, tool: "rollback_deployment", idempotent: true });
  });

  it("replay-result: a completed call returns its recorded result without calling the tool again", () => {
    const path = dbPath();
    const tool = fakeTool();
    const first = SqliteToolLedger.open(openDatabase(path));
    const begun = first.begin(call());
    first.complete(begun.key, tool.invoke(begun.key));
    // Recovery in another process: the same call is begun again.
    const second = SqliteToolLedger.open(openDatabase(path));
    const replay = second.begin(call());
    expect(replay).toEqual({ kind: "replay-result", key: begun.key, result: { ok: true, n: 1 }, externalOperationId: "op_1" });
    expect(tool.calls).toEqual([begun.key]);
  });

  it("reissue: an intent without result is re-issued with the same key when the tool is idempotent", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const begun = ledger.begin(call());
    // The process dies here: no complete().
    const again = ledger.begin(call());
    expect(again).toEqual({ kind: "reissue", key: begun.key, attempt: 2 });
    ledger.complete(again.key, { result: "done", externalOperationId: "op_9" });
    expect(ledger.get(begun.key)).toMatchObject({ status: "done", attempts: 2, result: "done", externalOperationId: "op_9" });
  });

  it("unknown-outcome: an intent without result is not re-issued when the tool cannot dedupe", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const begun = ledger.begin(call({ idempotent: false, tool: "send_message" }));
    const again = ledger.begin(call({ idempotent: false, tool: "send_message" }));
    expect(again.kind).toBe("unknown-outcome");
    if (again.kind !== "unknown-outcome") return;
    expect(again.key).toBe(begun.key);
    expect(again.error).toBeInstanceOf(ToolError);
    expect(again.error.code).toBe("UNKNOWN_OUTCOME");
    expect(ledger.get(begun.key)?.attempts).toBe(1);
  });

  it("a timeout leaves the outcome unknown; a definite failure allows a fresh call", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const key = ledger.begin(call({ idempotent: false })).key;
    ledger.fail(key, new ToolError("TOOL_TIMEOUT", "timed out"), { definite: false });
    expect(ledger.get(key)).toMatchObject({ status: "pending", error: { name: "ToolError", code: "TOOL_TIMEOUT" } });
    expect(ledger.begin(call({ idempotent: false })).kind).toBe("unknown-outcome");
    ledger.fail(key, new Error("HTTP 400: refused"));
    expect(ledger.begin(call({ idempotent: false }))).toEqual({ kind: "new", key, attempt: 2 });
  });

  it("the first recorded result wins", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const { key } = ledger.begin(call());
    ledger.complete(key, { result: 1, externalOperationId: "op_a" });
    ledger.complete(key, { result: 2, externalOperationId: "op_b" });
    ledger.fail(key, new Error("late"));
    expect(ledger.get(key)).toMatchObject({ status: "done", result: 1, externalOperationId: "op_a" });
  });

  it("refuses the same key with other arguments", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    ledger.begin(call());
    expect(() => ledger.begin(call({ argsHash: "sha256:other" }))).toThrow(expect.objectContaining({ code: "ARGS_HASH_MISMATCH" }));
  });

  it("a new action version is a new call", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const v1 = ledger.begin(call());
    ledger.complete(v1.key, { result: "v1" });
    expect(ledger.begin(call({ actionVersion: 2 }))).toEqual({ kind: "new", key: "run_1:call_1:2", attempt: 1 });
  });

  it("lists a run's calls in order and its done side effects", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const a = ledger.begin(call({ toolCallId: "a" }));
    ledger.begin(call({ toolCallId: "b" }));
    ledger.begin(call({ toolCallId: "c", runId: "run_2" }));
    ledger.complete(a.key, { result: "ok", externalOperationId: "op_a" });
    expect(ledger.list("run_1").map((e) => [e.toolCallId, e.status])).toEqual([["a", "done"], ["b", "pending"]]);
    expect(ledger.list("run_1", { status: "done" }).map((e) => e.externalOperationId)).toEqual(["op_a"]);
  });

  it("a guard (the caller's lease check) runs first and refuses without writing", () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const lost = new Error("lease lost");
    expect(() => ledger.begin(call({ guard: () => { throw lost; } }))).toThrow(lost);
    expect(ledger.list("run_1")).toEqual([]);
    expect(ledger.begin(call({ guard: () => undefined })).kind).toBe("new");
  });

  it("refuses a file whose ledger schema is newer", () => {
    const path = dbPath();
    const db = openDatabase(path);
    SqliteToolLedger.open(db);
    db.prepare("UPDATE agentrt_schema SET version = 42 WHERE module = 'ledger'").run();
    expect(() => SqliteToolLedger.open(openDatabase(path))).toThrow(StorageError);
  });
});
