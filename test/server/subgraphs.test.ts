// Studio's subgraph view: /assistants/{id}/subgraphs lists a graph's subgraphs (ops_copilot's specialists) with
// their state schemas, through the official SDK client.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it, onTestFinished } from "vitest";
import { startServer } from "../../src/server/server.js";
import { graphFile } from "./harness.js";

describe("assistant subgraphs", () => {
  it("lists the subgraphs of a multi-agent graph with their schemas, and none for a flat one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-subgraphs-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { ops_copilot: `${graphFile("ops_copilot")}:graph`, city_weather: `${graphFile("city_weather")}:graph` } }));
    const server = await startServer({ port: 0, db: join(dir, "agentrt.db"), config, apiKey: "", log: () => undefined });
    onTestFinished(() => server.close());
    const client = new Client({ apiUrl: server.url, apiKey: null });
    const subgraphs = await client.assistants.getSubgraphs("ops_copilot", { recurse: true });
    expect(Object.keys(subgraphs).sort()).toEqual(["comms_specialist", "deploy_specialist"]);
    for (const schemas of Object.values(subgraphs)) expect(Object.keys((schemas.state_schema as { properties: object }).properties)).toContain("messages");
    expect(await client.assistants.getSubgraphs("city_weather")).toEqual({});
  });
  it("shows the state of a subgraph a paused task is in, with subgraphs: true", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-subgraph-state-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { ops_copilot: `${graphFile("ops_copilot")}:graph` } }));
    const server = await startServer({ port: 0, db: join(dir, "agentrt.db"), config, apiKey: "", log: () => undefined });
    onTestFinished(() => server.close());
    const client = new Client({ apiUrl: server.url, apiKey: null });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "ops_copilot", { input: { messages: [{ role: "user", content: "The payments deploy failed. Find out why, roll back if needed (ask me first), and notify payments-oncall." }] } });
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const flat = await client.threads.getState(thread.thread_id);
    const paused = flat.tasks.find((t) => t.name === "deploy_specialist");
    expect(paused?.state).toBeNull();
    const nested = await client.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    const inner = nested.tasks.find((t) => t.name === "deploy_specialist")?.state as { values?: { messages?: unknown[] }; next?: string[] } | null;
    expect(inner?.values?.messages?.length).toBeGreaterThan(0);
    expect(inner?.next?.length).toBeGreaterThan(0);
  });
});
