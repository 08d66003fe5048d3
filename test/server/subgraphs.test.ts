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
});
