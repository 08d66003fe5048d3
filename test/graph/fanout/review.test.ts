// Approvals with edits, through the Runtime on a real SQLite file: an edit is checked against the tool's schema,
// judged by policy again, bound to a new args_hash and run under a new idempotency key; the trace keeps both.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/db/index.js";
import { Runtime } from "../../../src/runtime/index.js";
import type { RunView } from "../../../src/runtime/index.js";
import { refunds } from "../../fixtures/edits/graphs.js";

const CONFIG = fileURLToPath(new URL("../../fixtures/edits/langgraph.json", import.meta.url));

let db: string;
let runtime: Runtime;
beforeEach(async () => {
  refunds.length = 0;
  db = join(mkdtempSync(join(tmpdir(), "agentrt-edit-")), "e.db");
  runtime = Runtime.open({ db, config: CONFIG });
});
afterEach(() => runtime.close());

const start = (graph = "refunder") => runtime.submit({ graph, message: "refund alice", user: "ann" });
const only = (view: RunView) => {
  expect(view.status).toBe("WAITING_APPROVAL");
  expect(view.pending).toHaveLength(1);
  return view.pending[0]!;
};
const approve = (view: RunView, extra: { by?: string; roles?: string[]; editedArgs?: Record<string, unknown> } = {}) => {
  const action = only(view);
  return runtime.approve(view.run_id, { actionId: action.action_id, argsHash: action.args_hash, ...extra });
};
const ledger = () => {
  const file = openDatabase(db, { readonly: true });
  try {
    return file.prepare("SELECT action_version, idempotency_key, args_hash, status FROM tool_ledger ORDER BY action_version").all();
  } finally {
    file.close();
  }
};

describe("an approval interrupt speaks both dialects", () => {
  it("carries LangChain's HITL fields beside agentrt's, with the decisions policy allows", async () => {
    const view = await start();
    expect(only(view)).toMatchObject({ tool: "refund", allowed_decisions: ["approve", "edit", "reject"] });
    const graph = (await runtime.registry.load("refunder")) as unknown as { getState(c: object): Promise<{ tasks: { interrupts: { value: Record<string, unknown> }[] }[] }> };
    const state = await graph.getState({ configurable: { thread_id: view.thread_id } });
    const payload = state.tasks.flatMap((t) => t.interrupts)[0]!.value;
    expect(payload).toMatchObject({
      action_requests: [{ name: "refund", args: { amount: 50, to: "alice" }, description: "refunds need approval" }],
      review_configs: [{ action_name: "refund", allowed_decisions: ["approve", "edit", "reject"] }],
      actionRequests: [{ name: "refund", args: { amount: 50, to: "alice" } }],
      reviewConfigs: [{ actionName: "refund", allowedDecisions: ["approve", "edit", "reject"] }],
    });
    expect((payload.review_configs as { args_schema: { properties: object } }[])[0]!.args_schema.properties).toHaveProperty("amount");
  });
});

describe("edit", () => {
  it("runs the tool once with the edited arguments, under the next action version's key, and traces both", async () => {
    const view = await start();
    const done = await approve(view, { by: "ann", editedArgs: { amount: 80, to: "bob" } });
    expect(done.status).toBe("SUCCEEDED");
    expect(refunds).toEqual([{ amount: 80, to: "bob", key: `${view.run_id}:${refunds[0]!.key.split(":")[1]}:2` }]);
    expect(ledger()).toMatchObject([{ action_version: 2, status: "done" }]);
    const span = (await runtime.trace.spans(view.run_id)).find((s) => s.kind === "tool_call")!;
    expect(span.args).toEqual({ amount: 80, to: "bob" });
    expect(span.idempotencyKey).toMatch(/:2$/);
    expect(span.extra).toMatchObject({ edited_by: "ann", original_args: JSON.stringify({ amount: 50, to: "alice" }) });
  });

  it("refuses edited arguments the tool's schema refuses, and nothing runs", async () => {
    const view = await start();
    await expect(approve(view, { editedArgs: { amount: 5000, to: "bob" } })).rejects.toMatchObject({ code: "EDIT_ARGS_INVALID" });
    await expect(approve(view, { editedArgs: { amount: "ten", to: "bob" } })).rejects.toMatchObject({ code: "EDIT_ARGS_INVALID" });
    expect((await runtime.get(view.run_id)).status).toBe("WAITING_APPROVAL");
    expect(refunds).toEqual([]);
  });

  it("judges the edit by policy again: a larger amount waits for finance under a new args_hash", async () => {
    const view = await start();
    const first = only(view);
    const waiting = await approve(view, { by: "ann", editedArgs: { amount: 300, to: "alice" } });
    const second = only(waiting);
    expect(second).toMatchObject({ action_id: first.action_id, args: { amount: 300, to: "alice" }, approvers: ["role:finance"] });
    expect(second.args_hash).not.toBe(first.args_hash);
    expect(refunds).toEqual([]);
    // The old binding no longer decides anything.
    await expect(runtime.approve(view.run_id, { actionId: first.action_id, argsHash: first.args_hash, by: "fin", roles: ["finance"] }))
      .rejects.toMatchObject({ code: "ARGS_HASH_MISMATCH" });
    const done = await approve(waiting, { by: "fin", roles: ["finance"] });
    expect(done.status).toBe("SUCCEEDED");
    expect(refunds.map((r) => r.amount)).toEqual([300]);
  });

  it("an edit the editor may also approve needs no second approval", async () => {
    const view = await start();
    const done = await approve(view, { by: "ann", roles: ["finance"], editedArgs: { amount: 250, to: "alice" } });
    expect(done.status).toBe("SUCCEEDED");
    expect(refunds.map((r) => r.amount)).toEqual([250]);
  });

  it("an edit policy denies is not run; the model is told", async () => {
    const view = await start();
    const done = await approve(view, { editedArgs: { amount: 20, to: "blocked" } });
    expect(done.status).toBe("SUCCEEDED");
    expect(String(done.result)).toContain("PERMISSION_DENIED");
    expect(refunds).toEqual([]);
  });

  it("is refused where policy allows only approve or reject", async () => {
    const view = await start("no_edits");
    expect(only(view).allowed_decisions).toEqual(["approve", "reject"]);
    await expect(approve(view, { editedArgs: { amount: 20, to: "alice" } })).rejects.toMatchObject({ code: "DECISION_NOT_ALLOWED" });
    expect((await runtime.get(view.run_id)).status).toBe("WAITING_APPROVAL");
    const done = await approve(view);
    expect(done.status).toBe("SUCCEEDED");
    expect(refunds).toHaveLength(1);
  });
});
