// A thread's graph (metadata.graph_id) is the server's: a client may name it when creating a thread (the SDK's
// threads.create({ graphId })) but never change or remove it, so the guard that keeps one graph off another's
// checkpoints holds, and no client can make the thread listing fail with a graph that does not exist.
import { describe, expect, it } from "vitest";
import { graphEntry, testServerForFile } from "./harness.js";
import { httpCall } from "./http-call.js";

// The offline scripted model, whatever this shell has set.
delete process.env.OPENAI_API_KEY;
const ctx = testServerForFile({}, { city_weather: graphEntry("city_weather"), order_delay: graphEntry("order_delay") });

const call = (method: string, path: string, body?: unknown) => httpCall(ctx.server.url, method, path, body);

const ORDER = { messages: [{ role: "user", content: "Is my order 10086 late?" }] };
const WEATHER = { messages: [{ role: "user", content: "Weather in Beijing?" }] };

describe("a thread's graph", () => {
  it("cannot be patched away: the guard against another graph's run holds", async () => {
    const thread = await ctx.client.threads.create({ metadata: { team: "support" } });
    await ctx.client.runs.wait(thread.thread_id, "order_delay", { input: ORDER });
    const refused = await call("POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: "city_weather", input: WEATHER });
    expect(refused.status).toBe(422);

    for (const graphId of ["city_weather", null, "nope", 7]) {
      const patched = await call("PATCH", `/threads/${thread.thread_id}`, { metadata: { graph_id: graphId, team: "hijacked" } });
      expect(patched.status, JSON.stringify(graphId)).toBe(422);
      expect(patched.json.message).toMatch(/belongs to graph order_delay.*cannot be changed/);
    }
    // Nothing of a refused patch is stored, not even its other keys.
    expect((await ctx.client.threads.get(thread.thread_id)).metadata).toEqual({ team: "support", graph_id: "order_delay" });
    const still = await call("POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: "city_weather", input: WEATHER });
    expect(still.status).toBe(422);
    expect(still.json.message).toMatch(/belongs to graph order_delay, not city_weather/);

    // A client saving back the metadata it read (graph_id unchanged) is fine, and the thread stays usable.
    const read = await ctx.client.threads.get(thread.thread_id);
    const saved = await ctx.client.threads.update(thread.thread_id, { metadata: { ...read.metadata, team: "billing" } });
    expect(saved.metadata).toEqual({ team: "billing", graph_id: "order_delay" });
    const again = await call("POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: "order_delay", input: ORDER });
    expect(again.status).toBe(200);
  });

  it("is named at creation as the SDK sends it, and must be a graph of langgraph.json", async () => {
    const before = Number((await call("POST", "/threads/count", {})).json);
    const unknown = await call("POST", "/threads", { metadata: { graph_id: "nope" } });
    expect(unknown.status).toBe(422);
    expect(unknown.json).toMatchObject({ code: "UNKNOWN_GRAPH" });
    expect(unknown.json.message).toMatch(/no graph nope \(known: city_weather, order_delay\)/);
    expect((await call("POST", "/threads", { metadata: { graph_id: ["city_weather"] } })).status).toBe(422);
    expect((await call("POST", "/threads/count", {})).json).toBe(before);
    expect((await call("POST", "/threads/search", { limit: 100 })).status).toBe(200);

    const named = await ctx.client.threads.create({ graphId: "order_delay" });
    expect(named.metadata).toEqual({ graph_id: "order_delay" });
    expect((await call("POST", `/threads/${named.thread_id}/runs/wait`, { assistant_id: "city_weather", input: WEATHER })).status).toBe(422);
    // null names no graph: the thread is not locked, its first run binds it.
    const open = await call("POST", "/threads", { metadata: { graph_id: null } });
    expect(open.json.metadata).toEqual({});
    expect((await call("POST", `/threads/${open.json.thread_id}/runs/wait`, { assistant_id: "city_weather", input: WEATHER })).status).toBe(200);
    expect((await ctx.client.threads.get(String(open.json.thread_id))).metadata).toEqual({ graph_id: "city_weather" });
  });

  it("may be set by a patch while the thread has none, to a graph that exists", async () => {
    const thread = await ctx.client.threads.create();
    const unknown = await call("PATCH", `/threads/${thread.thread_id}`, { metadata: { graph_id: "nope" } });
    expect(unknown.status).toBe(422);
    expect((await ctx.client.threads.get(thread.thread_id)).metadata).toEqual({});
    expect((await call("POST", "/threads/search", { limit: 100 })).status).toBe(200);
    const set = await call("PATCH", `/threads/${thread.thread_id}`, { metadata: { graph_id: "city_weather" } });
    expect(set.status).toBe(200);
    expect((await call("POST", `/threads/${thread.thread_id}/runs/wait`, { assistant_id: "order_delay", input: ORDER })).status).toBe(422);
    expect((await call("PATCH", `/threads/${thread.thread_id}`, { metadata: { graph_id: "order_delay" } })).status).toBe(422);
  });
});
