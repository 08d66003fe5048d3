// The behaviour every ToolLedger backend must show (run by ledger.sqlite.test.ts and ledger.postgres.test.ts):
// exactly once per key, the recovery cases, the guard, and concurrent begins of one key.
import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/errors.js";
import { ledgerKey, type LedgerBeginInput, type ToolLedger } from "../../../src/ledger/ledger.js";

/** A fresh, empty ledger; `another` is a second handle on the same store (another process). */
export interface OpenedLedger {
  ledger: ToolLedger;
  another(): Promise<ToolLedger>;
  close(): Promise<void>;
}

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

/** Registers the ledger's behaviour tests against the backend `open` gives. */
export function describeLedgerConformance(name: string, open: () => Promise<OpenedLedger>): void {
  const withLedger = (test: (ledger: ToolLedger, opened: OpenedLedger) => Promise<void>) => async () => {
    const opened = await open();
    try {
      await test(opened.ledger, opened);
    } finally {
      await opened.close();
    }
  };

  describe(`ToolLedger conformance: ${name}`, () => {
    it("new: writes an intent with the key the tool receives", withLedger(async (ledger) => {
      const begun = await ledger.begin(call());
      expect(begun).toEqual({ kind: "new", key: "run_1:call_1:1", attempt: 1 });
      expect(ledgerKey({ runId: "run_1", toolCallId: "call_1" })).toBe(begun.key);
      expect(await ledger.get(begun.key)).toMatchObject({
        key: begun.key, runId: "run_1", toolCallId: "call_1", actionVersion: 1, tool: "rollback_deployment", argsHash: "sha256:abc",
        idempotent: true, status: "pending", attempts: 1, result: null, externalOperationId: null, error: null, completedAt: null,
      });
      expect(await ledger.get("run_1:other:1")).toBeUndefined();
    }));

    it("replay-result: a completed call returns its recorded result without calling the tool again", withLedger(async (first, opened) => {
      const tool = fakeTool();
      const begun = await first.begin(call());
      await first.complete(begun.key, tool.invoke(begun.key));
      // Recovery in another process: the same call is begun again.
      const second = await opened.another();
      expect(await second.begin(call())).toEqual({ kind: "replay-result", key: begun.key, result: { ok: true, n: 1 }, externalOperationId: "op_1" });
      expect(await second.begin(call({ idempotent: false }))).toMatchObject({ kind: "replay-result" });
      expect(tool.calls).toEqual([begun.key]);
      expect(await second.get(begun.key)).toMatchObject({ status: "done", attempts: 1, completedAt: expect.any(Number) });
    }));

    it("stores the result as the JSON it was given", withLedger(async (ledger) => {
      const result = { text: "héllo ✓ \u0000 \"quoted\"", nested: [1, 2.5, null, { deep: true }], empty: {} };
      const { key } = await ledger.begin(call());
      expect(await ledger.complete(key, { result })).toMatchObject({ status: "done", result, externalOperationId: null });
      const other = await ledger.begin(call({ toolCallId: "call_2" }));
      expect((await ledger.complete(other.key, { result: undefined })).result).toBeNull();
    }));

    it("reissue: an intent without result is re-issued with the same key when the tool is idempotent", withLedger(async (ledger) => {
      const begun = await ledger.begin(call());
      // The process dies here: no complete().
      const again = await ledger.begin(call());
      expect(again).toEqual({ kind: "reissue", key: begun.key, attempt: 2 });
      await ledger.complete(again.key, { result: "done", externalOperationId: "op_9" });
      expect(await ledger.get(begun.key)).toMatchObject({ status: "done", attempts: 2, result: "done", externalOperationId: "op_9" });
    }));

    it("unknown-outcome: an intent without result is not re-issued when the tool cannot dedupe", withLedger(async (ledger) => {
      const begun = await ledger.begin(call({ idempotent: false, tool: "send_message" }));
      const again = await ledger.begin(call({ idempotent: false, tool: "send_message" }));
      expect(again.kind).toBe("unknown-outcome");
      if (again.kind !== "unknown-outcome") return;
      expect(again.key).toBe(begun.key);
      expect(again.entry).toMatchObject({ key: begun.key, status: "pending", attempts: 1 });
      expect(again.error).toBeInstanceOf(ToolError);
      expect(again.error).toMatchObject({ code: "UNKNOWN_OUTCOME", details: { key: begun.key, attempts: 1, tool: "send_message" } });
      expect((await ledger.get(begun.key))?.attempts).toBe(1);
    }));

    it("confirmedReissue: only the attempt count the person saw re-issues a call that cannot dedupe, once", withLedger(async (ledger) => {
      const { key } = await ledger.begin(call({ idempotent: false }));
      expect((await ledger.begin(call({ idempotent: false, confirmedReissue: 2 }))).kind).toBe("unknown-outcome");
      expect(await ledger.begin(call({ idempotent: false, confirmedReissue: 1 }))).toEqual({ kind: "reissue", key, attempt: 2 });
      // A replay of the same (now old) confirmation asks again instead of issuing a third time.
      expect((await ledger.begin(call({ idempotent: false, confirmedReissue: 1 }))).kind).toBe("unknown-outcome");
      expect(await ledger.begin(call({ idempotent: false, confirmedReissue: 2 }))).toEqual({ kind: "reissue", key, attempt: 3 });
      await ledger.complete(key, { result: "sent" });
      expect(await ledger.begin(call({ idempotent: false, confirmedReissue: 3 }))).toMatchObject({ kind: "replay-result", result: "sent" });
    }));

    it("a timeout leaves the outcome unknown; a definite failure allows a fresh call", withLedger(async (ledger) => {
      const { key } = await ledger.begin(call({ idempotent: false }));
      expect(await ledger.fail(key, new ToolError("TOOL_TIMEOUT", "timed out"), { definite: false })).toMatchObject({
        status: "pending", error: { name: "ToolError", code: "TOOL_TIMEOUT", message: "timed out" },
      });
      expect((await ledger.begin(call({ idempotent: false }))).kind).toBe("unknown-outcome");
      expect(await ledger.fail(key, new Error("HTTP 400: refused"))).toMatchObject({ status: "failed", error: { name: "Error", message: "HTTP 400: refused" } });
      expect(await ledger.begin(call({ idempotent: false }))).toEqual({ kind: "new", key, attempt: 2 });
      expect(await ledger.get(key)).toMatchObject({ status: "pending", attempts: 2 });
    }));

    it("the first recorded result wins", withLedger(async (ledger) => {
      const { key } = await ledger.begin(call());
      await ledger.complete(key, { result: 1, externalOperationId: "op_a" });
      expect(await ledger.complete(key, { result: 2, externalOperationId: "op_b" })).toMatchObject({ result: 1, externalOperationId: "op_a" });
      expect(await ledger.fail(key, new Error("late"))).toMatchObject({ status: "done", error: null });
      expect(await ledger.get(key)).toMatchObject({ status: "done", result: 1, externalOperationId: "op_a" });
    }));

    it("refuses the same key with other arguments or another tool, and writes nothing", withLedger(async (ledger) => {
      const { key } = await ledger.begin(call());
      await expect(ledger.begin(call({ argsHash: "sha256:other" }))).rejects.toMatchObject({
        code: "ARGS_HASH_MISMATCH", details: { key, argsHash: "sha256:abc", newArgsHash: "sha256:other" },
      });
      await expect(ledger.begin(call({ tool: "delete_everything" }))).rejects.toMatchObject({ code: "ARGS_HASH_MISMATCH" });
      // Also when the entry would otherwise be re-issued (failed): the mismatch is refused, not overwritten.
      await ledger.fail(key, new Error("400"));
      await expect(ledger.begin(call({ argsHash: "sha256:other" }))).rejects.toMatchObject({ code: "ARGS_HASH_MISMATCH" });
      expect(await ledger.get(key)).toMatchObject({ status: "failed", attempts: 1, argsHash: "sha256:abc" });
    }));

    it("a new action version is a new call; the old version still replays", withLedger(async (ledger) => {
      const v1 = await ledger.begin(call());
      await ledger.complete(v1.key, { result: "v1" });
      expect(await ledger.begin(call({ actionVersion: 2 }))).toEqual({ kind: "new", key: "run_1:call_1:2", attempt: 1 });
      expect(await ledger.begin(call({ actionVersion: 2 }))).toEqual({ kind: "reissue", key: "run_1:call_1:2", attempt: 2 });
      expect(await ledger.begin(call())).toMatchObject({ kind: "replay-result", key: v1.key, result: "v1" });
      expect(await ledger.begin({ ...call(), actionVersion: undefined })).toMatchObject({ kind: "replay-result", key: v1.key });
    }));

    it("lists a run's calls in the order they were begun, and by status", withLedger(async (ledger) => {
      const a = await ledger.begin(call({ toolCallId: "b_first" }));
      await ledger.begin(call({ toolCallId: "a_second" }));
      await ledger.begin(call({ toolCallId: "c", runId: "run_2" }));
      const failed = await ledger.begin(call({ toolCallId: "0_third" }));
      await ledger.complete(a.key, { result: "ok", externalOperationId: "op_a" });
      await ledger.fail(failed.key, new Error("400"));
      // Begun again (a re-issue) keeps its place.
      await ledger.begin(call({ toolCallId: "a_second" }));
      expect((await ledger.list("run_1")).map((e) => [e.toolCallId, e.status])).toEqual([["b_first", "done"], ["a_second", "pending"], ["0_third", "failed"]]);
      expect((await ledger.list("run_1", { status: "done" })).map((e) => e.externalOperationId)).toEqual(["op_a"]);
      expect((await ledger.list("run_1", { status: "pending" })).map((e) => e.toolCallId)).toEqual(["a_second"]);
      expect(await ledger.list("run_none")).toEqual([]);
    }));

    it("complete and fail refuse a key that was never begun", withLedger(async (ledger) => {
      await expect(ledger.complete("run_1:ghost:1", { result: 1 })).rejects.toMatchObject({ code: "INTERNAL" });
      await expect(ledger.fail("run_1:ghost:1", new Error("x"))).rejects.toMatchObject({ code: "INTERNAL" });
      expect(await ledger.list("run_1")).toEqual([]);
    }));

    it("a guard (the caller's lease check) runs first, in the begin's transaction, and a throwing one writes nothing", withLedger(async (ledger) => {
      const lost = new Error("lease lost");
      await expect(ledger.begin(call({ guard: () => { throw lost; } }))).rejects.toBe(lost);
      expect(await ledger.list("run_1")).toEqual([]);
      const backends: string[] = [];
      const begun = await ledger.begin(call({ idempotent: false, guard: (tx) => { backends.push(tx.backend); } }));
      expect(begun.kind).toBe("new");
      expect(backends).toHaveLength(1);
      // Refused before a re-issue or a fresh attempt after a failure, too: the entry is left as it was.
      await ledger.fail(begun.key, new Error("400"));
      await expect(ledger.begin(call({ idempotent: false, guard: () => { throw lost; } }))).rejects.toBe(lost);
      expect(await ledger.get(begun.key)).toMatchObject({ status: "failed", attempts: 1 });
    }));

    it("a guard fences complete and fail too: a caller whose lease is gone leaves the new holder's attempt as it is", withLedger(async (ledger) => {
      const lost = new Error("lease lost");
      const begun = await ledger.begin(call());
      // The run was taken over and the new holder re-issued the call under the same key.
      expect(await ledger.begin(call())).toMatchObject({ kind: "reissue", attempt: 2 });
      await expect(ledger.fail(begun.key, new Error("aborted"), { guard: () => { throw lost; } })).rejects.toBe(lost);
      await expect(ledger.complete(begun.key, { result: "old" }, { guard: () => { throw lost; } })).rejects.toBe(lost);
      expect(await ledger.get(begun.key)).toMatchObject({ status: "pending", attempts: 2, result: null, error: null });
      const backends: string[] = [];
      const done = await ledger.complete(begun.key, { result: "new", externalOperationId: "op_2" }, { guard: (tx) => { backends.push(tx.backend); } });
      expect(done).toMatchObject({ status: "done", result: "new", externalOperationId: "op_2" });
      expect(backends).toHaveLength(1);
    }));

    it("concurrent begins of one key (two handles): exactly one is new, the others see its intent", withLedger(async (ledger, opened) => {
      const other = await opened.another();
      const handles = [ledger, other, ledger, other];
      const unsafe = await Promise.all(handles.map((h) => h.begin(call({ toolCallId: "pay", idempotent: false }))));
      expect(unsafe.map((b) => b.kind).sort()).toEqual(["new", "unknown-outcome", "unknown-outcome", "unknown-outcome"]);
      const safe = await Promise.all(handles.map((h) => h.begin(call({ toolCallId: "put" }))));
      expect(safe.map((b) => b.kind).sort()).toEqual(["new", "reissue", "reissue", "reissue"]);
      expect(safe.map((b) => ("attempt" in b ? b.attempt : 0)).sort()).toEqual([1, 2, 3, 4]);
      expect(await ledger.list("run_1")).toMatchObject([{ toolCallId: "pay", attempts: 1 }, { toolCallId: "put", attempts: 4 }]);
    }));

    it("concurrent completes of one key: one result wins and every caller gets it", withLedger(async (ledger, opened) => {
      const other = await opened.another();
      const { key } = await ledger.begin(call());
      const done = await Promise.all([ledger.complete(key, { result: "a" }), other.complete(key, { result: "b" })]);
      expect(done[0]?.result).toBe(done[1]?.result);
      expect((await ledger.get(key))?.result).toBe(done[0]?.result);
    }));
  });
}
