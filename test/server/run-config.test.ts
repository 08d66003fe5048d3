// A run's `config` and `metadata` over the SDK: configurable keys reach the graph, recursion_limit is LangGraph's,
// the run's own ids cannot be set by the caller, and the metadata is kept with the run.
import { describe, expect, it } from "vitest";
import { fixtureEntry, testServerForFile } from "./harness.js";

const ctx = testServerForFile({}, { configured: fixtureEntry("config-graph") });

describe("run config over HTTP", () => {
  it("passes configurable keys to the graph, under the run's own ids, and keeps them with the run", async () => {
    const thread = await ctx.client.threads.create();
    const values = (await ctx.client.runs.wait(thread.thread_id, "configured", { input: { loops: 1 }, config: { configurable: { tone: "friendly" } }, metadata: { origin: "studio" } })) as { reply?: string };
    expect(values.reply).toBe("friendly answer for anonymous");
    const [run] = await ctx.client.runs.list(thread.thread_id);
    expect(run?.metadata).toMatchObject({ origin: "studio" });
    expect((run as unknown as { kwargs: unknown }).kwargs).toMatchObject({ input: { loops: 1 }, config: { configurable: { tone: "friendly" } } });
    // Without a config, the graph sees none of the earlier run's keys.
    expect(((await ctx.client.runs.wait(thread.thread_id, "configured", { input: { loops: 1 } })) as { reply?: string }).reply).toBe("plain answer for anonymous");
  });

  it("stops a run at its recursion limit with RECURSION_LIMIT", async () => {
    const thread = await ctx.client.threads.create();
    const values = (await ctx.client.runs.wait(thread.thread_id, "configured", { input: { loops: 5 }, config: { recursion_limit: 2 }, raiseError: false })) as { __error__?: { error: string } };
    expect(values.__error__?.error).toBe("RECURSION_LIMIT");
    expect(((await ctx.client.runs.wait(thread.thread_id, "configured", { input: { loops: 5 } })) as { reply?: string }).reply).toBe("plain answer for anonymous");
  });

  it("refuses the run's own keys and a bad recursion limit with 422, storing no run", async () => {
    const thread = await ctx.client.threads.create();
    const post = async (config: unknown) => {
      const response = await fetch(`${ctx.server.url}/threads/${thread.thread_id}/runs`, {
        method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "configured", input: { loops: 1 }, config }),
      });
      return { status: response.status, body: (await response.json()) as { message?: string } };
    };
    for (const key of ["user", "roles", "thread_id", "checkpoint_id", "run_id", "action_version", "__pregel_send"]) {
      const refused = await post({ configurable: { [key]: "x" } });
      expect(refused.status).toBe(422);
      expect(refused.body.message).toContain(`configurable.${key}`);
    }
    expect((await post({ recursion_limit: 0 })).status).toBe(422);
    expect((await post({ configurable: "tone" })).status).toBe(422);
    expect(await ctx.client.runs.list(thread.thread_id)).toEqual([]);
  });
});
