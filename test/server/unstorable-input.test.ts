// Text PostgreSQL cannot store (a NUL, a lone surrogate) and filters past what a statement takes are refused with
// one line and 422 on both backends, storing nothing; before, PostgreSQL answered 500 INTERNAL for the former and
// both backends 500 for a 60,000-key filter.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverBackends, startTestServer } from "./harness.js";

delete process.env.OPENAI_API_KEY;

describe.each(serverBackends(import.meta.url))("unstorable input on $backend", ({ db }) => {
  let ctx: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    ctx = await startTestServer({ db: db() });
  });
  afterAll(async () => {
    await ctx.server.close();
  });

  async function send(method: string, path: string, body?: string): Promise<{ status: number; code?: string; message?: string }> {
    const response = await fetch(`${ctx.server.url}${path}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body }) });
    const text = await response.text();
    return { status: response.status, ...(text === "" ? {} : JSON.parse(text) as { code?: string; message?: string }) };
  }

  const refused = (answer: { status: number; code?: string; message?: string }, reason: RegExp): void => {
    expect(answer.status).toBe(422);
    expect(answer.code).toBe("BAD_INPUT");
    expect(answer.message).toMatch(reason);
    expect(answer.message).not.toContain("\n");
  };

  it("refuses a NUL or a lone surrogate in thread metadata, thread ids (path and body) and search filters", async () => {
    const thread = await ctx.client.threads.create({ metadata: { team: "pay" } });
    const nul = "a\\u0000b";
    const lone = "a\\ud800b";
    for (const text of [nul, lone]) {
      const reason = text === nul ? /NUL character/ : /lone surrogate/;
      refused(await send("POST", "/threads", `{"metadata":{"team":"${text}"}}`), reason);
      refused(await send("POST", "/threads", `{"metadata":{"${text}":1}}`), reason);
      refused(await send("PATCH", `/threads/${thread.thread_id}`, `{"metadata":{"team":"${text}"}}`), reason);
      refused(await send("POST", "/threads", `{"thread_id":"${text}"}`), reason);
      refused(await send("POST", "/threads/search", `{"metadata":{"team":"${text}"}}`), reason);
      refused(await send("POST", "/threads/count", `{"metadata":{"team":"${text}"}}`), reason);
      refused(await send("POST", "/threads/search", `{"ids":["${text}"]}`), reason);
    }
    refused(await send("GET", "/threads/a%00b"), /NUL character/);
    refused(await send("GET", "/threads/a%00b/state"), /NUL character/);
    refused(await send("POST", "/threads/a%00b/runs/wait", `{"assistant_id":"city_weather","input":{"messages":[]}}`), /NUL character/);
    // A lone surrogate has no UTF-8 form: in a path its bytes stay percent-escapes, plain text (no such thread).
    expect((await send("GET", "/threads/a%ED%A0%80b")).status).toBe(404);
    expect((await ctx.client.threads.search({ limit: 100 })).map((t) => t.thread_id)).toEqual([thread.thread_id]);
    expect((await ctx.client.threads.get(thread.thread_id)).metadata).toEqual({ team: "pay" });
  });

  it("bounds a metadata filter: 60,000 keys (under 1 MB) is 422, 100 keys are served", async () => {
    const huge = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]));
    refused(await send("POST", "/threads/search", JSON.stringify({ metadata: huge })), /at most 100 keys/);
    refused(await send("POST", "/threads/count", JSON.stringify({ metadata: huge })), /at most 100 keys/);
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const served = await send("POST", "/threads/count", JSON.stringify({ metadata: hundred }));
    expect(served.status).toBe(200);
  });
});
