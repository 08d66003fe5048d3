// kill -9 of the server mid-run: on the next start the run resumes from its last checkpoint and the client sees it finish.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";

const child = fileURLToPath(new URL("./fixtures/serve-child.ts", import.meta.url));
const slowGraph = fileURLToPath(new URL("./fixtures/slow-graph.ts", import.meta.url));
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

async function serve(db: string, config: string): Promise<{ child: ChildProcess; url: string }> {
  const server = spawn(process.execPath, ["--import", "tsx", child, db, config], {
    env: { ...process.env, AGENTRT_LEASE_MS: "1000" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(server);
  const lines = createInterface({ input: server.stdout });
  for await (const line of lines) {
    return { child: server, url: (JSON.parse(line) as { url: string }).url };
  }
  throw new Error("server exited before printing its address");
}

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await read();
    if (ok(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("condition not reached");
}

describe("server restart", () => {
  it("resumes a run killed mid-way after a restart on the same file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-restart-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { slow: `${slowGraph}:graph` } }));
    const db = join(dir, "agentrt.db");

    const first = await serve(db, config);
    const client = new Client({ apiUrl: first.url });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { steps: [] } });
    await until(() => client.threads.getState<{ steps?: string[] }>(thread.thread_id), (s) => (s.values.steps ?? []).length >= 1);
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));

    const second = await serve(db, config);
    const again = new Client({ apiUrl: second.url });
    const values = (await again.runs.join(thread.thread_id, run.run_id)) as { steps: string[] };
    expect(values.steps).toEqual(["a", "b", "c"]);
    const after = await again.runs.get(thread.thread_id, run.run_id);
    expect(after.status).toBe("success");
    expect(after.metadata).toMatchObject({ agentrt_status: "SUCCEEDED" });
  });
});
