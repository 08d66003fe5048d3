// Planned tool calls through the Runtime: two approvals in one `$ref` group are listed with their resolved
// arguments, decided one at a time, and the referenced call runs once.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { argsHash } from "../../../src/entrypoints/tools.js";
import { Runtime } from "../../../src/runtime/index.js";
import { executions } from "./fixtures/tool-dag-approval-graph.js";

let dir: string;
let runtime: Runtime;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "agentrt-tool-dag-runtime-"));
  const file = fileURLToPath(new URL("./fixtures/tool-dag-approval-graph.ts", import.meta.url));
  writeFileSync(join(dir, "langgraph.json"), JSON.stringify({ graphs: { planned_cancel: `${file}:graph` } }));
  runtime = Runtime.open({ db: join(dir, "runs.db"), config: join(dir, "langgraph.json") });
  executions.length = 0;
});
afterEach(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("planned tool calls in the runtime", () => {
  it("waits for both approvals of a group, on the resolved arguments, and runs the referenced call once", async () => {
    const waiting = await runtime.submit({ graph: "planned_cancel", message: "cancel order 10086", user: "alice" });
    expect(waiting.status).toBe("WAITING_APPROVAL");
    expect(waiting.pending.map((p) => p.args.sku).sort()).toEqual(["CAB-2", "PRN-80"]);
    for (const p of waiting.pending) expect(p.args_hash).toBe(argsHash("cancel_item", p.args));
    expect(executions).toEqual(["get_order:10086"]);

    const [first, second] = waiting.pending;
    const half = await runtime.approve(waiting.run_id, { actionId: first!.action_id, argsHash: first!.args_hash, by: "alice" });
    expect(half.status).toBe("WAITING_APPROVAL");
    expect(half.pending.map((p) => p.action_id)).toEqual([second!.action_id]);
    const done = await runtime.approve(waiting.run_id, { actionId: second!.action_id, argsHash: second!.args_hash, by: "alice" });
    expect(done.status).toBe("SUCCEEDED");
    expect(done.result).toBe("done,done,done");
    expect(executions.sort()).toEqual(["cancel_item:CAB-2", "cancel_item:PRN-80", "get_order:10086"]);
  });
});
