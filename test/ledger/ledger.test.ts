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

describe("SqliteToolLedger", async () => {
  it("new: writes an intent with the key the tool receives", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const begun = await ledger.begin(call());
    expect(begun).toEqual({ kind: "new", key: "run_1:call_1:1", attempt: 1 });
    expect(ledgerKey({ runId: "run_1", toolCallId: "call_1" })).toBe(begun.key);
    expect(await ledger.get(begun.key)).toMatchObject({ status: "pending", attempts: 1, tool: "rollback_deployment", idempotent: true });
  });

  it("replay-result: a completed call returns its recorded result without calling the tool again", async () => {
    const path = dbPath();
    const tool = fakeTool();
    const first = SqliteToolLedger.open(openDatabase(path));
    const begun = await first.begin(call());
    await first.complete(begun.key, tool.invoke(begun.key));
    // Recovery in another process: the same call is begun again.
    const second = SqliteToolLedger.open(openDatabase(path));
    const replay = await second.begin(call());
    expect(replay).toEqual({ kind: "replay-result", key: begun.key, result: { ok: true, n: 1 }, externalOperationId: "op_1" });
    expect(tool.calls).toEqual([begun.key]);
  });

  it("reissue: an intent without result is re-issued with the same key when the tool is idempotent", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const begun = await ledger.begin(call());
    // The process dies here: no complete().
    const again = await ledger.begin(call());
    expect(again).toEqual({ kind: "reissue", key: begun.key, attempt: 2 });
    await ledger.complete(again.key, { result: "done", externalOperationId: "op_9" });
    expect(await ledger.get(begun.key)).toMatchObject({ status: "done", attempts: 2, result: "done", externalOperationId: "op_9" });
  });

  it("unknown-outcome: an intent without result is not re-issued when the tool cannot dedupe", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const begun = await ledger.begin(call({ idempotent: false, tool: "send_message" }));
    const again = await ledger.begin(call({ idempotent: false, tool: "send_message" }));
    expect(again.kind).toBe("unknown-outcome");
    if (again.kind !== "unknown-outcome") return;
    expect(again.key).toBe(begun.key);
    expect(again.error).toBeInstanceOf(ToolError);
    expect(again.error.code).toBe("UNKNOWN_OUTCOME");
    expect((await ledger.get(begun.key))?.attempts).toBe(1);
  });

  it("a timeout leaves the outcome unknown; a definite failure allows a fresh call", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const { key } = await ledger.begin(call({ idempotent: false }));
    await ledger.fail(key, new ToolError("TOOL_TIMEOUT", "timed out"), { definite: false });
    expect(await ledger.get(key)).toMatchObject({ status: "pending", error: { name: "ToolError", code: "TOOL_TIMEOUT" } });
    expect((await ledger.begin(call({ idempotent: false }))).kind).toBe("unknown-outcome");
    await ledger.fail(key, new Error("HTTP 400: refused"));
    expect(await ledger.begin(call({ idempotent: false }))).toEqual({ kind: "new", key, attempt: 2 });
  });

  it("the first recorded result wins", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const { key } = await ledger.begin(call());
    await ledger.complete(key, { result: 1, externalOperationId: "op_a" });
    await ledger.complete(key, { result: 2, externalOperationId: "op_b" });
    await ledger.fail(key, new Error("late"));
    expect(await ledger.get(key)).toMatchObject({ status: "done", result: 1, externalOperationId: "op_a" });
  });

  it("refuses the same key with other arguments", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    await ledger.begin(call());
    await expect(ledger.begin(call({ argsHash: "sha256:other" }))).rejects.toThrow(expect.objectContaining({ code: "ARGS_HASH_MISMATCH" }));
  });

  it("a new action version is a new call", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const v1 = await ledger.begin(call());
    await ledger.complete(v1.key, { result: "v1" });
    expect(await ledger.begin(call({ actionVersion: 2 }))).toEqual({ kind: "new", key: "run_1:call_1:2", attempt: 1 });
  });

  it("lists a run's calls in order and its done side effects", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const a = await ledger.begin(call({ toolCallId: "a" }));
    await ledger.begin(call({ toolCallId: "b" }));
    await ledger.begin(call({ toolCallId: "c", runId: "run_2" }));
    await ledger.complete(a.key, { result: "ok", externalOperationId: "op_a" });
    expect((await ledger.list("run_1")).map((e) => [e.toolCallId, e.status])).toEqual([["a", "done"], ["b", "pending"]]);
    expect((await ledger.list("run_1", { status: "done" })).map((e) => e.externalOperationId)).toEqual(["op_a"]);
  });

  it("a guard (the caller's lease check) runs first and refuses without writing", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    const lost = new Error("lease lost");
    await expect(ledger.begin(call({ guard: () => { throw lost; } }))).rejects.toThrow(lost);
    expect(await ledger.list("run_1")).toEqual([]);
    expect((await ledger.begin(call({ guard: () => undefined }))).kind).toBe("new");
  });

  it("on SQLite the guard runs synchronously in the intent's transaction: an async guard is refused and writes nothing", async () => {
    const ledger = SqliteToolLedger.open(openDatabase(dbPath()));
    let seen: unknown;
    await ledger.begin(call({ toolCallId: "sync", guard: (tx) => { seen = tx.backend === "sqlite" && tx.db.inTransaction; } }));
    expect(seen).toBe(true);
    await expect(ledger.begin(call({ guard: async () => undefined }))).rejects.toMatchObject({ code: "INTERNAL" });
    expect((await ledger.list("run_1")).map((e) => e.toolCallId)).toEqual(["sync"]);
  });

  it("refuses a file whose ledger schema is newer", async () => {
    const path = dbPath();
    const db = openDatabase(path);
    SqliteToolLedger.open(db);
    db.prepare("UPDATE agentrt_schema SET version = 42 WHERE module = 'ledger'").run();
    expect(() => SqliteToolLedger.open(openDatabase(path))).toThrow(StorageError);
  });
});
