// A thrown error becomes one outcome whether the runtime catches it around the graph or the worker's
// executeClaimed catches it around a whole execution: same code, same message rule.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_RECURSION_LIMIT, Scheduler, executeClaimed } from "../../src/runs/index.js";
import { Runtime } from "../../src/runtime/index.js";
import { graph } from "../fixtures/failing/fail.js";
import { freshStore } from "../runs/helpers.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

const CONFIG = fileURLToPath(new URL("../fixtures/failing/langgraph.json", import.meta.url));
const runtime = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-error-outcome-")), "e.db"), config: CONFIG });
afterAll(() => runtime.close());

/** The error as the runtime records it: thrown inside the graph it executes. */
async function viaRuntime(kind: string): Promise<{ errorCode: string | null; errorMessage: string | null }> {
  const view = await runtime.submit({ graph: "fail", input: { kind } });
  expect(view.status).toBe("FAILED");
  const { errorCode, errorMessage } = await runtimeInternals(runtime).runs.get(view.run_id);
  return { errorCode, errorMessage };
}

/** The same error as the worker records it: thrown by an execute around the same graph. */
async function viaWorker(kind: string): Promise<{ errorCode: string | null; errorMessage: string | null }> {
  const { store } = freshStore();
  const { runId } = await store.create({ graphId: "fail" });
  const claimed = (await new Scheduler(store).claimNext({ workerId: "w", leaseMs: 60_000 }))!;
  const result = await executeClaimed(claimed, async () => {
    await graph.invoke({ kind }, { recursionLimit: DEFAULT_RECURSION_LIMIT });
  });
  expect(result.kind).toBe("recorded");
  const { errorCode, errorMessage } = await store.get(runId);
  store.db.close();
  return { errorCode, errorMessage };
}

describe("error → outcome", () => {
  it.each([
    ["loop", "RECURSION_LIMIT", /^Recursion limit of 100 reached/],
    ["foreign", "INTERNAL", /^the service broke$/],
    ["agentrt", "TOOL_FAILED", /^the tool failed\nwith a second line$/],
  ])("%s: the same code and message from the runtime and from the worker", async (kind, code, message) => {
    const fromRuntime = await viaRuntime(kind);
    const fromWorker = await viaWorker(kind);
    expect(fromRuntime.errorCode).toBe(code);
    expect(fromRuntime.errorMessage).toMatch(message);
    expect(fromWorker).toEqual(fromRuntime);
  });

  it("a foreign error keeps only its first line, an agentrt error its whole message", async () => {
    expect((await viaWorker("loop")).errorMessage).not.toContain("\n");
    expect((await viaWorker("agentrt")).errorMessage).toContain("\n");
  });
});
