/**
 * agentrt's server driven by LangGraph's own SDK client (`@langchain/langgraph-sdk`), as Studio does:
 * a run of ops_rollback pauses for approval; the client reads what it waits for and approves it.
 *   npm run agentrt -- serve --port 2024       # in one terminal
 *   npx tsx examples/sdk-client.ts              # in another (AGENTRT_URL to point elsewhere)
 * @module
 */
import { Client } from "@langchain/langgraph-sdk";

const client = new Client({ apiUrl: process.env.AGENTRT_URL ?? "http://localhost:2024" });

const assistants = await client.assistants.search({ graphId: "ops_rollback" });
console.log(`assistant: ${assistants[0]?.graph_id ?? "none"}`);

const thread = await client.threads.create();
const input = { messages: [{ role: "user", content: "Why did the payments deploy fail?" }] };
await client.runs.wait(thread.thread_id, "ops_rollback", { input });

// A paused run's thread lists its interrupts; agentrt's approval interrupt says exactly what to approve.
const state = await client.threads.getState(thread.thread_id);
const [interrupt] = state.tasks.flatMap((task) => task.interrupts);
const action = interrupt?.value as { action_id: string; tool: string; args: unknown; args_hash: string } | undefined;
if (action === undefined) throw new Error("expected the run to wait for approval");
console.log(`waits for approval: ${action.tool} ${JSON.stringify(action.args)}`);

// Resume with the decision: bound to this action and these exact arguments (their hash).
const done = (await client.runs.wait(thread.thread_id, "ops_rollback", {
  command: { resume: { action_id: action.action_id, args_hash: action.args_hash, decision: "approve" } },
})) as { result?: string };
console.log(`answer: ${done.result ?? ""}`);
