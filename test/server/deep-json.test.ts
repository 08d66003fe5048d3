// Deeply nested JSON in any body is a 422 naming the limit (500 levels, as for stored values), never a 500 from a
// stack overflow, and stores nothing; a body at the limit is served.
import { describe, expect, it } from "vitest";
import { graphEntry, testServerForFile } from "./harness.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

delete process.env.OPENAI_API_KEY;
const ctx = testServerForFile({}, { city_weather: graphEntry("city_weather") });

/** `levels` nested arrays around 1, as text: JSON.stringify itself overflows on such a value. */
const nested = (levels: number): string => `${"[".repeat(levels)}1${"]".repeat(levels)}`;

async function send(method: string, path: string, body: string): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const response = await fetch(`${ctx.server.url}${path}`, { method, headers: { "content-type": "application/json" }, body });
  const text = await response.text();
  return { status: response.status, body: (text === "" ? {} : JSON.parse(text)) as { code?: string; message?: string } };
}

const refusedForDepth = (answer: { status: number; body: { code?: string; message?: string } }): void => {
  expect(answer.status).toBe(422);
  expect(answer.body.code).toBe("BAD_INPUT");
  expect(answer.body.message).toMatch(/deeper than 500 levels/);
};

describe("deep JSON bodies", () => {
  it("refuses 5,000 levels in run input, thread metadata and run metadata with 422, storing nothing", async () => {
    const deep = nested(5000);
    const thread = await ctx.client.threads.create();
    refusedForDepth(await send("POST", "/runs/wait", `{"assistant_id":"city_weather","input":{"messages":[{"role":"user","content":${deep}}]}}`));
    refusedForDepth(await send("POST", `/threads/${thread.thread_id}/runs`, `{"assistant_id":"city_weather","input":{"messages":${deep}}}`));
    refusedForDepth(await send("POST", "/threads", `{"metadata":{"tag":${deep}}}`));
    refusedForDepth(await send("PATCH", `/threads/${thread.thread_id}`, `{"metadata":{"tag":${deep}}}`));
    refusedForDepth(await send("POST", "/runs", `{"assistant_id":"city_weather","input":{"messages":[]},"metadata":{"tag":${deep}}}`));
    refusedForDepth(await send("POST", "/threads/search", `{"metadata":{"tag":${deep}}}`));
    // A 1 MB body of brackets (the size limit) is refused the same way.
    refusedForDepth(await send("POST", "/threads", nested(500_000)));
    expect((await runtimeInternals(ctx.server.runtime).runs.list({})).length).toBe(0);
    expect((await ctx.client.threads.search()).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect((await ctx.client.threads.get(thread.thread_id)).metadata).not.toHaveProperty("tag");
  });

  it("serves fields nested exactly 500 levels and refuses 501, for every body as for stored values", async () => {
    // metadata is an object holding the array: 1 + 499 levels.
    const created = await send("POST", "/threads", `{"metadata":{"tag":${nested(499)}}}`);
    expect(created.status).toBe(200);
    refusedForDepth(await send("POST", "/threads", `{"metadata":{"tag":${nested(500)}}}`));
    // The store's own check (a put from a graph) and the body's name one limit.
    expect((await send("PUT", "/store/items", `{"namespace":["deep"],"key":"k","value":{"tag":${nested(499)}}}`)).status).toBe(204);
    refusedForDepth(await send("PUT", "/store/items", `{"namespace":["deep"],"key":"k","value":{"tag":${nested(500)}}}`));
    expect((await ctx.client.threads.search({ limit: 100 })).length).toBeGreaterThan(0);
  });
});
