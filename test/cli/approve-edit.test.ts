// `agentrt approve --edit-args`: the CLI face of an edit, with the same codes as the Runtime and exit 2 on refusal.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refunds } from "../fixtures/edits/graphs.js";
import { cliOnDb } from "../helpers/cli.js";

interface RunJson {
  run_id: string;
  status: string;
  pending: { action_id: string; args_hash: string; args: Record<string, unknown>; allowed_decisions?: string[] }[];
}

let db = "";
const { cli, json } = cliOnDb<RunJson>(() => db);
const previous = process.env.AGENTRT_CONFIG;
beforeEach(() => {
  db = join(mkdtempSync(join(tmpdir(), "agentrt-cli-edit-")), "e.db");
  refunds.length = 0;
  process.env.AGENTRT_CONFIG = fileURLToPath(new URL("../fixtures/edits/langgraph.json", import.meta.url));
});
afterEach(() => {
  if (previous === undefined) delete process.env.AGENTRT_CONFIG;
  else process.env.AGENTRT_CONFIG = previous;
});

describe("agentrt approve --edit-args", () => {
  it("runs the call with the edited arguments; refusals exit 2 with the code and leave the run waiting", async () => {
    const { view } = await json("run", "refunder", "--message", "refund alice", "--user", "ann");
    const action = view.pending[0]!;
    expect(action.allowed_decisions).toEqual(["approve", "edit", "reject"]);
    const bind = ["--action", action.action_id, "--args-hash", action.args_hash];

    const badSchema = await cli("approve", view.run_id, ...bind, "--edit-args", '{"amount": 9000, "to": "bob"}');
    expect(badSchema.code).toBe(2);
    expect(badSchema.err).toContain("EDIT_ARGS_INVALID");
    const notJson = await cli("approve", view.run_id, ...bind, "--edit-args", "{amount: 1}");
    expect(notJson.code).toBe(2);
    expect(notJson.err).toContain("--edit-args is not valid JSON");
    const withReject = await cli("approve", view.run_id, ...bind, "--reject", "--edit-args", '{"amount": 1, "to": "bob"}');
    expect(withReject.code).toBe(2);
    expect(refunds).toEqual([]);

    const done = await json("approve", view.run_id, ...bind, "--edit-args", '{"amount": 60, "to": "bob"}');
    expect(done.code).toBe(0);
    expect(done.view.status).toBe("SUCCEEDED");
    expect(refunds.map((r) => [r.amount, r.to])).toEqual([[60, "bob"]]);
  });
});
