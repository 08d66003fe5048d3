// Waiting on a run another process executes: no event reaches the server, its shared data_version watch wakes the waiter.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it, onTestFinished } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { startServer } from "../../src/server/server.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

describe("waiting on runs", () => {
  it("joins a run that another connection executes and sees it finish", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-server-waiters-"));
    const config = join(dir, "langgraph.json");
    const slow = fileURLToPath(new URL("./fixtures/slow-graph.ts", import.meta.url));
    writeFileSync(config, JSON.stringify({ graphs: { slow: `${slow}:graph` } }));
    const db = join(dir, "agentrt.db");
    const server = await startServer({ port: 0, db, config, log: () => undefined, apiKey: "" });
    onTestFinished(() => server.close());
    const other = Runtime.open({ db, config });
    onTestFinished(() => other.close());

    // The other runtime runs it on its own connection, as `agentrt run` in another terminal would.
    const running = other.submit({ graph: "slow", input: { steps: [] }, threadId: "t-elsewhere" });
    let runId: string | undefined;
    while (runId === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      runId = (await runtimeInternals(other).runs.list({ threadId: "t-elsewhere" }))[0]?.runId;
    }
    const client = new Client({ apiUrl: server.url });
    const joined = (await client.runs.join("t-elsewhere", runId)) as { steps: string[] };
    expect(joined.steps).toEqual(["a", "b", "c"]);
    expect((await running).status).toBe("SUCCEEDED");
    expect((await client.runs.get("t-elsewhere", runId)).status).toBe("success");
  });
});
