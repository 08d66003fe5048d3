// `agentrt serve --db postgres://…` through the real CLI in its own process, with a worker process: the official SDK
// streams a run to its approval, approves it ({ decisions: [...] }), and the run finishes with exactly one rollback
// in the schema's simulated world; SIGTERM stops server and worker with exit 0.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeWorlds, openWorld } from "../../src/testing/index.js";
import { useTestSchema } from "../helpers/postgres.js";
import { ROLLBACK_INPUT, type Approval } from "./harness.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const schema = useTestSchema(import.meta.url);
const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});
afterAll(closeWorlds);

/** `agentrt serve --port 0 --db URL --json --workers 1` from the checkout; its JSON line once it listens. */
async function serve(db: string): Promise<{ child: ChildProcess; url: string; workers: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.OPENAI_API_KEY;
  delete env.AGENTRT_API_KEY;
  delete env.AGENTRT_DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", "serve", "--port", "0", "--db", db, "--json", "--workers", "1"], {
    cwd: root, env, stdio: ["ignore", "pipe", "inherit"],
  });
  spawned.push(child);
  for await (const line of createInterface({ input: child.stdout })) return { child, ...(JSON.parse(line) as { url: string; workers: number }) };
  throw new Error("agentrt serve exited before listening");
}

describe("agentrt serve --db postgres://…", () => {
  it("streams a run created with the SDK to its approval, approves it, and finishes it with one rollback", async () => {
    const { child, url, workers } = await serve(schema.url);
    expect(workers).toBe(1);
    const client = new Client({ apiUrl: url, apiKey: null });
    const thread = await client.threads.create({ metadata: { via: "cli" } });
    const events: string[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT, streamMode: "updates" })) events.push(part.event);
    expect(events[0]).toBe("metadata");
    expect(events).toContain("updates");
    const waiting = await client.threads.getState(thread.thread_id);
    const approval = waiting.tasks.flatMap((t) => t.interrupts.map((i) => i.value as Approval))[0];
    expect(approval?.tool).toBe("rollback_deployment");
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    // The resume is a background run (a worker process may claim it), joined until it rests.
    const resumed = await client.runs.create(thread.thread_id, "ops_rollback", { command: { resume: { decisions: [{ type: "approve" }] } } });
    const done = (await client.runs.join(thread.thread_id, resumed.run_id)) as { messages: { content: string }[] };
    expect(done.messages.at(-1)?.content).toMatch(/Rolled back to/);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
    expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success"]);
    expect((await client.threads.search({ metadata: { via: "cli" } })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    // The server wrote to the schema it was given: its world saw exactly one rollback.
    expect((await openWorld({ path: schema.url }).snapshot()).calls.rollback_deployment).toBe(1);

    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 120_000);
});
