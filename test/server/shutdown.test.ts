// Stopping the server gracefully hands back the runs it executes itself (not only its worker loop's), so the
// next start resumes them at once instead of after their lease expires; a port in use is a one-line refusal.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it, onTestFinished } from "vitest";
import { UserInputError } from "../../src/errors.js";
import { startServer } from "../../src/server/server.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

function slowProject(): { db: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-server-shutdown-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { slow: `${fileURLToPath(new URL("./fixtures/slow-graph.ts", import.meta.url))}:graph` } }));
  return { db: join(dir, "agentrt.db"), config };
}

describe("server shutdown", () => {
  it("hands back a background run it was executing: RETRYING at once, its attempt not counted, finished by the next server", async () => {
    const { db, config } = slowProject();
    // 30 s leases: a run left to lease expiry would still be RUNNING under the dead server's lease.
    const first = await startServer({ port: 0, db, config, apiKey: "", log: () => undefined });
    const client = new Client({ apiUrl: first.url, apiKey: null });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { steps: [] } });
    while ((await runtimeInternals(first.runtime).runs.get(run.run_id)).status !== "RUNNING") await new Promise((r) => setTimeout(r, 10));
    await first.close();

    const second = await startServer({ port: 0, db, config, apiKey: "", log: () => undefined });
    onTestFinished(() => second.close());
    const released = (await runtimeInternals(second.runtime).runs.events(run.run_id)).find((e) => e.to === "RETRYING");
    expect(released).toMatchObject({ from: "RUNNING", reason: expect.stringMatching(/is stopping/), errorCode: null });
    const joined = (await new Client({ apiUrl: second.url, apiKey: null }).runs.join(thread.thread_id, run.run_id)) as { steps: string[] };
    expect(joined.steps).toEqual(["a", "b", "c"]);
    // Handed back, not crashed: one attempt in all, and no lease expiry on the way.
    expect(await runtimeInternals(second.runtime).runs.get(run.run_id)).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
    expect((await runtimeInternals(second.runtime).runs.events(run.run_id)).some((e) => e.errorCode === "LEASE_LOST")).toBe(false);
  });

  it("refuses a port that is in use with one line, not a stack trace", async () => {
    const { db, config } = slowProject();
    const taken = await startServer({ port: 0, db, config, apiKey: "", log: () => undefined });
    onTestFinished(() => taken.close());
    const error = await startServer({ port: taken.port, db: join(mkdtempSync(join(tmpdir(), "agentrt-port-")), "b.db"), config, apiKey: "", log: () => undefined }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserInputError);
    expect((error as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${taken.port}: the port is already in use`));
  });
});
