// Run creates over HTTP with an idempotency key (the `Idempotency-Key` header or the body's `idempotency_key`): a
// retried create — on every create route — answers with the first run and starts no second; the key with another
// body is 422; keys are per caller, so one user's key never returns another's run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { openWorld } from "../../src/testing/index.js";
import { graphEntry, startTestServer } from "./harness.js";

const KEYS = { alice: "alice-key-0001", bob: "bob-key-00002" };
const shared = {} as { server: AgentServer; db: string };
beforeAll(async () => {
  const started = await startTestServer({ apiKey: `alice:${KEYS.alice},bob:${KEYS.bob}` }, { city_weather: graphEntry("city_weather") });
  Object.assign(shared, { server: started.server, db: started.project.db });
});
afterAll(async () => {
  await shared.server.close();
});

const WEATHER = { assistant_id: "city_weather", input: { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] } };

async function post(path: string, body: unknown, headers: Record<string, string> = {}, user: keyof typeof KEYS = "alice") {
  const response = await fetch(`${shared.server.url}${path}`, {
    method: "POST", headers: { "content-type": "application/json", "x-api-key": KEYS[user], ...headers }, body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, location: response.headers.get("content-location"), text, json: (text.startsWith("{") ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
}
const weatherCalls = async () => (await openWorld({ path: shared.db }).snapshot()).calls.get_weather ?? 0;
const runsOf = async (threadPath: string, user: keyof typeof KEYS = "alice") =>
  (await (await fetch(`${shared.server.url}${threadPath}`, { headers: { "x-api-key": KEYS[user] } })).json()) as { run_id: string }[];

describe("idempotent run create over HTTP", () => {
  it("a retried runs.wait (stateless) answers with the first run's values; the tools ran once", async () => {
    await openWorld({ path: shared.db }).reset();
    const first = await post("/runs/wait", WEATHER, { "Idempotency-Key": "wait-1" });
    expect(first.status).toBe(200);
    const retried = await post("/runs/wait", WEATHER, { "Idempotency-Key": "wait-1" });
    expect(retried.status).toBe(200);
    expect(retried.location).toBe(first.location);
    expect(retried.json).toEqual(first.json);
    // The body's field is the same key, on another create route.
    const background = await post("/runs", { ...WEATHER, idempotency_key: "wait-1" });
    expect(`/threads/${String(background.json?.thread_id)}/runs/${String(background.json?.run_id)}`).toBe(first.location);
    expect(await weatherCalls()).toBe(3);
  });

  it("on a thread: a retried create and stream return the first run; one run stored", async () => {
    const thread = (await post("/threads", {})).json!.thread_id as string;
    const first = await post(`/threads/${thread}/runs`, WEATHER, { "Idempotency-Key": "thread-1" });
    expect(first.status).toBe(200);
    const again = await post(`/threads/${thread}/runs`, WEATHER, { "Idempotency-Key": "thread-1" });
    expect(again.json?.run_id).toBe(first.json?.run_id);
    const streamed = await post(`/threads/${thread}/runs/stream`, WEATHER, { "Idempotency-Key": "thread-1" });
    expect(streamed.status).toBe(200);
    expect(streamed.location).toBe(`/threads/${thread}/runs/${String(first.json?.run_id)}`);
    expect(await runsOf(`/threads/${thread}/runs`)).toHaveLength(1);
  });

  it("refuses the key with another body (422, one line, nothing stored) and a header that differs from the body's key", async () => {
    const thread = (await post("/threads", {})).json!.thread_id as string;
    await post(`/threads/${thread}/runs/wait`, WEATHER, { "Idempotency-Key": "body-1" });
    const other = { ...WEATHER, input: { messages: [{ role: "user", content: "Weather for Paris" }] } };
    const refused = await post(`/threads/${thread}/runs/wait`, other, { "Idempotency-Key": "body-1" });
    expect(refused.status).toBe(422);
    expect(refused.json?.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(String(refused.json?.message)).not.toContain("\n");
    expect(await runsOf(`/threads/${thread}/runs`)).toHaveLength(1);
    const clash = await post(`/threads/${thread}/runs`, { ...WEATHER, idempotency_key: "a" }, { "Idempotency-Key": "b" });
    expect(clash.status).toBe(422);
    const bad = await post(`/threads/${thread}/runs`, WEATHER, { "Idempotency-Key": "has space" });
    expect(bad.status).toBe(422);
    expect(await runsOf(`/threads/${thread}/runs`)).toHaveLength(1);
  });

  it("scopes keys per caller: bob's same key starts bob's own run", async () => {
    const alice = await post("/runs", WEATHER, { "Idempotency-Key": "shared-1" });
    const bob = await post("/runs", WEATHER, { "Idempotency-Key": "shared-1" }, "bob");
    expect(bob.status).toBe(200);
    expect(bob.json?.run_id).not.toBe(alice.json?.run_id);
    const bobAgain = await post("/runs", WEATHER, { "Idempotency-Key": "shared-1" }, "bob");
    expect(bobAgain.json?.run_id).toBe(bob.json?.run_id);
  });
});
