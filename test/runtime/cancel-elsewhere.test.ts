// A cancel made by another process (another connection to the file) stops the run a worker executes within
// about a second — the worker watches its runs' leases — not only at its next heartbeat (a third of the lease).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals, runtimeSqlite } from "../../src/runtime/internals.js";

describe("a cancel from another process", () => {
  it("aborts the step a worker is executing long before the worker's next heartbeat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-cancel-elsewhere-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { slow: `${fileURLToPath(new URL("../server/fixtures/slow-graph.ts", import.meta.url))}:graph` } }));
    const abortLog = join(dir, "aborted.txt");
    Object.assign(process.env, { SLOW_STEP_MS: "30000", SLOW_ABORT_LOG: abortLog });
    onTestFinished(() => {
      delete process.env.SLOW_STEP_MS;
      delete process.env.SLOW_ABORT_LOG;
    });
    const db = join(dir, "runs.db");
    const executing = Runtime.open({ db, config });
    const elsewhere = Runtime.open({ db, config });
    onTestFinished(async () => {
      await executing.close();
      await elsewhere.close();
    });
    const queued = await elsewhere.submit({ graph: "slow", input: { steps: [] }, queue: true });
    // A 10-minute lease: its heartbeat would come after 200 s, far beyond this test's timeout.
    const worker = executing.worker({ once: true, leaseMs: 600_000, pollMs: 20 });
    const stats = worker.run();
    // Step "a" starts right after the run's input checkpoint is written.
    const checkpoints = runtimeSqlite(elsewhere).prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ?");
    while ((checkpoints.get(queued.thread_id) as { n: number }).n === 0) await new Promise((r) => setTimeout(r, 10));
    await elsewhere.cancel(queued.run_id, { by: "ops" });
    expect(await stats).toMatchObject({ lost: 1 });
    expect(existsSync(abortLog) && readFileSync(abortLog, "utf8")).toBe("a aborted\n");
    expect((await runtimeInternals(elsewhere).runs.get(queued.run_id)).status).toBe("CANCELED");
  });
});
