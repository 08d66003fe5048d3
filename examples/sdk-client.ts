/**
 * agentrt's server driven by LangGraph's own SDK client (`@langchain/langgraph-sdk`), as Studio does:
 * a run of ops_rollback pauses for approval; the client reads what it waits for and approves it.
 *   npx tsx examples/sdk-client.ts          # starts `agentrt serve` on a free port for itself (AGENTRT_DB: its file)
 *   AGENTRT_URL=http://127.0.0.1:8123 npx tsx examples/sdk-client.ts   # or talks to a server you started
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";

/**
 * `agentrt serve --port 0` (a free port, never one already taken) from this checkout, and the URL it prints.
 * In your own project: `npx agentrt serve --port 0 --json`.
 */
async function startServe(db: string): Promise<{ url: string; server: ChildProcess }> {
  const bin = fileURLToPath(new URL("../src/cli/bin.ts", import.meta.url));
  const server = spawn(process.execPath, ["--import", "tsx", bin, "serve", "--port", "0", "--db", db, "--json"], { stdio: ["ignore", "pipe", "inherit"] });
  for await (const line of createInterface({ input: server.stdout })) return { url: (JSON.parse(line) as { url: string }).url, server };
  throw new Error("agentrt serve exited before it listened");
}

const db = process.env.AGENTRT_DB ?? "./agentrt.db";
const own = process.env.AGENTRT_URL === undefined ? await startServe(db) : undefined;
try {
  const client = new Client({ apiUrl: own?.url ?? process.env.AGENTRT_URL });

  const assistants = await client.assistants.search({ graphId: "ops_rollback" });
  console.log(`assistant: ${assistants[0]?.graph_id ?? "none"}`);

  const thread = await client.threads.create();
  const input = { messages: [{ role: "user", content: "Why did the payments deploy fail?" }] };
  const first = (await client.runs.wait(thread.thread_id, "ops_rollback", { input })) as { result?: string };

  // A paused run's thread lists its interrupts; agentrt's approval interrupt says exactly what to approve.
  const state = await client.threads.getState(thread.thread_id);
  const [interrupt] = state.tasks.flatMap((task) => task.interrupts);
  const action = interrupt?.value as { action_id: string; tool: string; args: unknown; args_hash: string } | undefined;
  if (action === undefined) {
    // The simulated world remembers an earlier rollback: nothing is left to roll back, so nothing to approve.
    console.error(`nothing to approve: the run answered "${first.result ?? ""}" (the simulated deploy is already rolled back; npm run agentrt -- world --reset --db ${db} starts it over)`);
    process.exitCode = 1;
  } else {
    console.log(`waits for approval: ${action.tool} ${JSON.stringify(action.args)}`);
    // Resume with the decision: bound to this action and these exact arguments (their hash).
    const done = (await client.runs.wait(thread.thread_id, "ops_rollback", {
      command: { resume: { action_id: action.action_id, args_hash: action.args_hash, decision: "approve" } },
    })) as { result?: string };
    console.log(`answer: ${done.result ?? ""}`);
  }
} finally {
  own?.server.kill("SIGTERM");
}
