import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openDatabase } from "../../src/db/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { ToolCallScope } from "../../src/tools/execute-tool.js";
import { argsHash } from "../../src/tools/args-hash.js";
import { ledgerFor } from "../../src/ledger/executor.js";
import { createResilientExecutor } from "../../src/tools/resilient-executor.js";

const db = () => openDatabase(join(mkdtempSync(join(tmpdir(), "agentrt-lexec-")), "l.db"));

/** A side-effecting tool that counts how often it really ran and which keys it saw. */
function counted(idempotent: boolean) {
  const keys: string[] = [];
  const tool = defineTool({
    name: "send", description: "send", risk: "write", idempotent, schema: z.object({ to: z.string() }),
    execute: (_args, ctx) => {
      keys.push(ctx.idempotencyKey);
      ctx.setExternalOperationId(`op_${keys.length}`);
      return { sent: keys.length };
    },
  });
  return { tool, keys };
}

const scope = (database: ToolCallScope["db"]): ToolCallScope => ({ runId: "run_1", threadId: "t", toolCallId: "call_1", user: "u", db: database });

describe("createResilientExecutor with a run database", () => {
  it("records the call with its operation id and replays it instead of calling again", async () => {
    const database = db();
    const { tool, keys } = counted(false);
    const execute = createResilientExecutor();
    const first = await execute(tool, { to: "a" }, scope(database));
    const again = await execute(tool, { to: "a" }, scope(database));
    expect(first).toMatchObject({ ok: true, result: { sent: 1 }, externalOperationId: "op_1" });
    expect(again).toMatchObject({ ok: true, result: { sent: 1 }, externalOperationId: "op_1", attempts: 0 });
    expect(keys).toEqual(["run_1:call_1:1"]);
    expect(await ledgerFor(database).list("run_1")).toMatchObject([{ status: "done", externalOperationId: "op_1" }]);
  });

  it("re-issues an intent without result with the same key for an idempotent tool", async () => {
    const database = db();
    const { tool, keys } = counted(true);
    await ledgerFor(database).begin({ runId: "run_1", toolCallId: "call_1", tool: "send", argsHash: argsHash("send", { to: "a" }), idempotent: true });
    const outcome = await createResilientExecutor()(tool, { to: "a" }, scope(database));
    expect(outcome).toMatchObject({ ok: true });
    expect(keys).toEqual(["run_1:call_1:1"]);
  });

  it("reports UNKNOWN_OUTCOME for a tool that cannot dedupe, without calling it; a confirmed re-issue calls once with the same key", async () => {
    const database = db();
    const { tool, keys } = counted(false);
    await ledgerFor(database).begin({ runId: "run_1", toolCallId: "call_1", tool: "send", argsHash: argsHash("send", { to: "a" }), idempotent: false });
    const outcome = await createResilientExecutor()(tool, { to: "a" }, scope(database));
    expect(outcome).toMatchObject({ ok: false, error: { code: "UNKNOWN_OUTCOME", details: { key: "run_1:call_1:1", attempts: 1 } }, attempts: 0 });
    expect(keys).toEqual([]);
    // A confirmation for another issue count (a stale approval) does not re-issue.
    expect(await createResilientExecutor()(tool, { to: "a" }, { ...scope(database), confirmedReissue: 2 })).toMatchObject({ error: { code: "UNKNOWN_OUTCOME" } });
    expect(await createResilientExecutor()(tool, { to: "a" }, { ...scope(database), confirmedReissue: 1 })).toMatchObject({ ok: true, result: { sent: 1 } });
    expect(keys).toEqual(["run_1:call_1:1"]);
    expect(await ledgerFor(database).list("run_1")).toMatchObject([{ status: "done", attempts: 2 }]);
  });

  it("a timeout of a tool that cannot dedupe comes back as UNKNOWN_OUTCOME (not a plain failure); an idempotent one keeps its error", async () => {
    const database = db();
    const hang = (idempotent: boolean) => defineTool({
      name: idempotent ? "put" : "pay", description: "hangs", risk: "write", idempotent, timeoutMs: 10, schema: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const paid = await createResilientExecutor()(hang(false), {}, scope(database));
    expect(paid).toMatchObject({ ok: false, error: { code: "UNKNOWN_OUTCOME", details: { attempts: 1 } } });
    expect(paid.ok ? undefined : paid.error.message).toMatch(/did not report back \(pay timed out/);
    const put = await createResilientExecutor()(hang(true), {}, { ...scope(database), toolCallId: "call_2" });
    expect(put).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect((await ledgerFor(database).list("run_1")).map((e) => e.status)).toEqual(["pending", "pending"]);
  });

  it("a plain Error with a network code keeps the outcome unknown (the wrapped code is not lost)", async () => {
    const database = db();
    let calls = 0;
    const reset = defineTool({
      name: "notify", description: "resets", risk: "write", schema: z.object({}), retry: { attempts: 3, initialDelayMs: 1 },
      execute: () => { calls++; throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }); },
    });
    const outcome = await createResilientExecutor()(reset, {}, scope(database));
    expect(outcome).toMatchObject({ ok: false, error: { code: "UNKNOWN_OUTCOME" } });
    expect(calls).toBe(1);
    expect(await ledgerFor(database).list("run_1")).toMatchObject([{ status: "pending", error: { code: "TOOL_FAILED" } }]);
  });

  it("a definite failure is recorded as failed and may be called again", async () => {
    const database = db();
    const refused = defineTool({
      name: "post", description: "400", risk: "write", schema: z.object({}),
      execute: () => { throw new Error("400 bad request"); },
    });
    expect(await createResilientExecutor()(refused, {}, scope(database))).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    expect(await ledgerFor(database).list("run_1")).toMatchObject([{ status: "failed" }]);
  });

  it("a ledger that cannot be written is a run-level storage error, not a tool failure", async () => {
    const database = db();
    const { tool, keys } = counted(false);
    ledgerFor(database);
    database.exec("DROP TABLE tool_ledger");
    await expect(createResilientExecutor()(tool, { to: "a" }, scope(database))).rejects.toMatchObject({ code: "DB_WRITE_FAILED" });
    expect(keys).toEqual([]);
  });

  it("leaves calls without a database or without side effects alone", async () => {
    const { tool, keys } = counted(false);
    await createResilientExecutor()(tool, { to: "a" }, scope(undefined));
    await createResilientExecutor()(tool, { to: "a" }, scope(undefined));
    expect(keys).toHaveLength(2);
  });
});
