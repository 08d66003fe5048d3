import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openDatabase } from "../../src/db/index.js";
import { defineTool } from "../../src/tools/define-tool.js";
import type { ToolCallScope } from "../../src/tools/execute-tool.js";
import { argsHash } from "../../src/tools/args-hash.js";
import { ledgerFor } from "../../src/tools/ledger-executor.js";
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
    expect(ledgerFor(database).list("run_1")).toMatchObject([{ status: "done", externalOperationId: "op_1" }]);
  });

  it("re-issues an intent without result with the same key for an idempotent tool", async () => {
    const database = db();
    const { tool, keys } = counted(true);
    ledgerFor(database).begin({ runId: "run_1", toolCallId: "call_1", tool: "send", argsHash: argsHash("send", { to: "a" }), idempotent: true });
    const outcome = await createResilientExecutor()(tool, { to: "a" }, scope(database));
    expect(outcome).toMatchObject({ ok: true });
    expect(keys).toEqual(["run_1:call_1:1"]);
  });

  it("throws UNKNOWN_OUTCOME for a tool that cannot dedupe, without calling it", async () => {
    const database = db();
    const { tool, keys } = counted(false);
    ledgerFor(database).begin({ runId: "run_1", toolCallId: "call_1", tool: "send", argsHash: argsHash("send", { to: "a" }), idempotent: false });
    await expect(createResilientExecutor()(tool, { to: "a" }, scope(database))).rejects.toMatchObject({ code: "UNKNOWN_OUTCOME" });
    expect(keys).toEqual([]);
  });

  it("leaves calls without a database or without side effects alone", async () => {
    const { tool, keys } = counted(false);
    await createResilientExecutor()(tool, { to: "a" }, scope(undefined));
    await createResilientExecutor()(tool, { to: "a" }, scope(undefined));
    expect(keys).toHaveLength(2);
  });
});
