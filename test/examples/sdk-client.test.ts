// examples/sdk-client.ts against `agentrt serve` in its own process: LangGraph's SDK client starts a run, sees it
// wait for approval, approves it and gets the answer; run again, with nothing left to roll back, it says so.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT, exampleDir, runExample } from "./run-example.js";

let server: ChildProcess | undefined;
afterEach(() => {
  server?.kill("SIGTERM");
  server = undefined;
});

/** Starts `agentrt serve --port 0` under tsx and resolves with its URL once it listens. */
async function serve(db: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.AGENTRT_API_KEY;
  server = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "serve", "--port", "0", "--db", db, "--json"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "inherit"] });
  const lines = createInterface({ input: server.stdout! });
  for await (const line of lines) return (JSON.parse(line) as { url: string }).url;
  throw new Error("agentrt serve exited before listening");
}

describe("examples/sdk-client.ts", () => {
  it("drives ops_rollback through approval on a server it starts on a free port, then says there is nothing to approve", async () => {
    const db = join(exampleDir(), "agentrt.db");
    // No AGENTRT_URL: the example starts `agentrt serve --port 0` itself (no fixed port to collide on).
    const run = await runExample("examples/sdk-client.ts", [], { AGENTRT_DB: db, AGENTRT_API_KEY: "" });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^assistant: ops_rollback$/m);
    expect(run.stdout).toMatch(/^waits for approval: rollback_deployment \{.*"service":"payments".*\}$/m);
    expect(run.stdout).toMatch(/^answer: .*roll/im);

    // Again on the same world, through a server started apart (AGENTRT_URL): the deploy is already rolled back.
    const again = await runExample("examples/sdk-client.ts", [], { AGENTRT_URL: await serve(db), AGENTRT_DB: db });
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^nothing to approve: .*world --reset --db \S+ starts it over\)$/)]);
  }, 180_000);
});
