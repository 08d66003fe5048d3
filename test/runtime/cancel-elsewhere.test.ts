// A cancel made by another process (another connection to the database) stops the run a worker executes within
// about a second — the worker watches its runs' leases — not only at its next heartbeat (a third of the lease).
// The same test on a SQLite file and on a PostgreSQL schema.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";
import { useTestSchema } from "../helpers/postgres.js";

const schema = useTestSchema(import.meta.url);

/** A database of each backend. */
const backends = [
  { name: "SQLite", db: (dir: string) => join(dir, "runs.db") },
  { name: "PostgreSQL", db: () => schema.fresh().url },
];

describe.each(backends)("a cancel from another process ($name)", (backend) => {
  it("aborts the step a worker is executing long before the worker's next heartbeat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-cancel-elsewhere-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { slow: `${fileURLToPath(new URL("../server/fixtures/slow-graph.ts", import.meta.url))}:graph` } }));
    const abortLog = join(dir, "aborted.txt");
    const startLog = join(dir, "started.txt");
    Object.assign(process.env, { SLOW_STEP_MS: "30000", SLOW_ABORT_LOG: abortLog, SLOW_START_LOG: startLog });
    onTestFinished(() => {
      delete process.env.SLOW_STEP_MS;
      delete process.env.SLOW_ABORT_LOG;
      delete process.env.SLOW_START_LOG;
    });
    const db = backend.db(dir);
    const executing = Runtime.open({ db, config });
    const elsewhere = Runtime.open({ db, config });
    onTestFinished(async () => {
      await executing.close();
      await elsewhere.close();
    });
    await Promise.all([executing.ready(), elsewhere.ready()]);
    const queued = await elsewhere.submit({ graph: "slow", input: { steps: [] }, queue: true });
    // A 10-minute lease: its heartbeat would come after 200 s, far beyond this test's timeout.
    const worker = executing.worker({ once: true, leaseMs: 600_000, pollMs: 20 });
    const stats = worker.run();
    // Cancel once step "a" executes (earlier, the fence may refuse a checkpoint before "a" even starts).
    while (!existsSync(startLog)) await new Promise((r) => setTimeout(r, 10));
    await elsewhere.cancel(queued.run_id, { by: "ops" });
    expect(await stats).toMatchObject({ lost: 1 });
    expect(existsSync(abortLog) && readFileSync(abortLog, "utf8")).toBe("a aborted\n");
    expect((await runtimeInternals(elsewhere).runs.get(queued.run_id)).status).toBe("CANCELED");
  });
});
