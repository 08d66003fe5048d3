// Studio's subgraph view: /assistants/{id}/subgraphs lists a graph's subgraphs (ops_copilot's specialists) with
// their state schemas, through the official SDK ctx.client.
import { describe, expect, it } from "vitest";
import { graphEntry, testServerForFile } from "./harness.js";

const ctx = testServerForFile({}, { ops_copilot: graphEntry("ops_copilot"), city_weather: graphEntry("city_weather") });

describe("assistant subgraphs", () => {
  it("lists the subgraphs of a multi-agent graph with their schemas, and none for a flat one", async () => {
    const subgraphs = await ctx.client.assistants.getSubgraphs("ops_copilot", { recurse: true });
    expect(Object.keys(subgraphs).sort()).toEqual(["comms_specialist", "deploy_specialist"]);
    for (const schemas of Object.values(subgraphs)) expect(Object.keys((schemas.state_schema as { properties: object }).properties)).toContain("messages");
    expect(await ctx.client.assistants.getSubgraphs("city_weather")).toEqual({});
  });
  it("shows the state of a subgraph a paused task is in, with subgraphs: true", async () => {
    const thread = await ctx.client.threads.create();
    await ctx.client.runs.wait(thread.thread_id, "ops_copilot", { input: { messages: [{ role: "user", content: "The payments deploy failed. Find out why, roll back if needed (ask me first), and notify payments-oncall." }] } });
    expect((await ctx.client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const flat = await ctx.client.threads.getState(thread.thread_id);
    const paused = flat.tasks.find((t) => t.name === "deploy_specialist");
    expect(paused?.state).toBeNull();
    const nested = await ctx.client.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    const inner = nested.tasks.find((t) => t.name === "deploy_specialist")?.state as { values?: { messages?: unknown[] }; next?: string[] } | null;
    expect(inner?.values?.messages?.length).toBeGreaterThan(0);
    expect(inner?.next?.length).toBeGreaterThan(0);
  });
});
