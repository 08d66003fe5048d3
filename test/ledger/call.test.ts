import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/index.js";
import { NotPerformedError, ToolError } from "../../src/errors.js";
import { callThroughLedger, isDefiniteFailure } from "../../src/ledger/call.js";
import type { LedgerBeginInput } from "../../src/ledger/ledger.js";
import { SqliteToolLedger } from "../../src/ledger/sqlite-ledger.js";

const ledger = () => SqliteToolLedger.open(openDatabase(join(mkdtempSync(join(tmpdir(), "agentrt-lcall-")), "l.db")));
const input = (idempotent: boolean): LedgerBeginInput => ({ runId: "run_1", toolCallId: "call_1", tool: "send_message", argsHash: "h", idempotent });

/** An external system that counts performed operations and dedupes on the key when asked to. */
function externalSystem(dedupe: boolean) {
  const seen = new Map<string, string>();
  let performed = 0;
  return {
    get performed() {
      return performed;
    },
    async perform(key: string) {
      if (dedupe && seen.has(key)) return { result: "sent", externalOperationId: seen.get(key)! };
      performed++;
      seen.set(key, `op_${performed}`);
      return { result: "sent", externalOperationId: `op_${performed}` };
    },
  };
}

describe("callThroughLedger", () => {
  it("calls once, records, and replays the recorded result afterwards", async () => {
    const l = ledger();
    const system = externalSystem(false);
    const first = await callThroughLedger(l, input(false), (key) => system.perform(key));
    const again = await callThroughLedger(l, input(false), (key) => system.perform(key));
    expect(first).toEqual({ result: "sent", externalOperationId: "op_1", replayed: false, attempt: 1 });
    expect(again).toEqual({ result: "sent", externalOperationId: "op_1", replayed: true, attempt: 0 });
    expect(system.performed).toBe(1);
  });

  it("after a crash between call and record, re-issues an idempotent call with the same key", async () => {
    const l = ledger();
    const system = externalSystem(true);
    const { key } = await l.begin(input(true));
    await system.perform(key); // performed, then the process died before complete()
    const recovered = await callThroughLedger(l, input(true), (k) => system.perform(k));
    expect(recovered).toMatchObject({ externalOperationId: "op_1", replayed: false, attempt: 2 });
    expect(system.performed).toBe(1);
  });

  it("after a crash, refuses to re-issue a call that cannot be deduped", async () => {
    const l = ledger();
    const system = externalSystem(false);
    await l.begin(input(false));
    const error = await callThroughLedger(l, input(false), (k) => system.perform(k)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ code: "UNKNOWN_OUTCOME" });
    expect(system.performed).toBe(0);
  });

  it("a definite failure may be tried again; a timeout leaves the outcome unknown", async () => {
    const l = ledger();
    const refused = new ToolError("TOOL_FAILED", "HTTP 400");
    await expect(callThroughLedger(l, input(false), async () => Promise.reject(refused))).rejects.toBe(refused);
    const timeout = new ToolError("TOOL_TIMEOUT", "slow");
    await expect(callThroughLedger(l, input(false), async () => Promise.reject(timeout))).rejects.toBe(timeout);
    await expect(callThroughLedger(l, input(false), async () => ({ result: 1 }))).rejects.toMatchObject({ code: "UNKNOWN_OUTCOME" });
  });

  it("classifies timeouts and aborts as unknown outcomes", () => {
    expect(isDefiniteFailure(new ToolError("TOOL_FAILED", "x"))).toBe(true);
    expect(isDefiniteFailure(new Error("boom"))).toBe(true);
    expect(isDefiniteFailure(new ToolError("TOOL_TIMEOUT", "x"))).toBe(false);
    expect(isDefiniteFailure(new ToolError("CANCELED", "x"))).toBe(false);
    expect(isDefiniteFailure(new DOMException("aborted", "AbortError"))).toBe(false);
    // Wrapped errors keep their meaning: a TOOL_FAILED caused by a reset is still a reset.
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(isDefiniteFailure(new ToolError("TOOL_FAILED", "x", { cause: reset }))).toBe(false);
    expect(isDefiniteFailure(new ToolError("TOOL_FAILED", "x", { cause: new Error("400") }))).toBe(true);
  });

  it("an abort the call says came before it was performed is a definite failure, also when wrapped", async () => {
    const canceled = new ToolError("CANCELED", "run canceled");
    const notPerformed = new NotPerformedError("CANCELED", "aborted before it was performed", { cause: canceled });
    expect(isDefiniteFailure(notPerformed)).toBe(true);
    expect(isDefiniteFailure(new ToolError("TOOL_FAILED", "x", { cause: notPerformed }))).toBe(true);
    // Told by the property, not the class: a tool built on another copy of agentrt is heard too.
    expect(isDefiniteFailure(Object.assign(new Error("aborted"), { name: "AbortError", performed: false }))).toBe(true);
    const l = ledger();
    await expect(callThroughLedger(l, input(false), async () => Promise.reject(notPerformed))).rejects.toBe(notPerformed);
    expect(await l.list("run_1")).toMatchObject([{ status: "failed" }]);
  });
});
