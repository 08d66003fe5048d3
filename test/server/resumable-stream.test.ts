// Resumable streams: every chunk's SSE event carries an id; a client that lost its stream comes back with
// Last-Event-ID and gets exactly the chunks it missed, in order, then the live ones (LangGraph's joinStream).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentServer } from "../../src/server/server.js";
import { graphEntry, serverBackends, startTestServer } from "./harness.js";
import { readEvents, type SseEvent } from "./sse-events.js";

describe.each(serverBackends(import.meta.url))("on $backend", ({ db }) => {
  let server: AgentServer;
  const previousLatency = process.env.AGENTRT_SIM_LATENCY_MS;
  beforeAll(async () => {
    // Slow tools, so the run is still going when the first stream is dropped.
    process.env.AGENTRT_SIM_LATENCY_MS = "150";
    ({ server } = await startTestServer({ db: db() }, { city_weather: graphEntry("city_weather") }));
  });
  afterAll(async () => {
    await server.close();
    if (previousLatency === undefined) delete process.env.AGENTRT_SIM_LATENCY_MS;
    else process.env.AGENTRT_SIM_LATENCY_MS = previousLatency;
  });

  async function startStream(threadId: string, abort: AbortController): Promise<Response> {
    return fetch(`${server.url}/threads/${threadId}/runs/stream`, {
      method: "POST", signal: abort.signal, headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "city_weather", stream_mode: ["updates"],
        input: { messages: [{ role: "user", content: "Weather for Beijing, Shanghai and Shenzhen" }] },
      }),
    });
  }

  const join = (threadId: string, runId: string, lastEventId?: string) => fetch(`${server.url}/threads/${threadId}/runs/${runId}/stream?stream_mode=updates`, {
    headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId },
  });

  const ids = (events: SseEvent[]) => events.filter((e) => e.id !== undefined).map((e) => Number(e.id));

  async function newThread(): Promise<string> {
    const response = await fetch(`${server.url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    return ((await response.json()) as { thread_id: string }).thread_id;
  }

  describe("resumable streams", () => {
    it("numbers each chunk; a reconnect with Last-Event-ID gets the rest, none twice, none lost", async () => {
      const threadId = await newThread();
      const abort = new AbortController();
      const first = await startStream(threadId, abort);
      const runId = /\/runs\/([^/]+)$/.exec(first.headers.get("content-location") ?? "")?.[1] ?? "";
      // Dropped after the first numbered chunk (the model's first turn), while the tools are still running.
      const before = await readEvents(first, (events) => ids(events).length === 1, abort);
      expect(before[0]?.event).toBe("metadata");
      const lastSeen = before.at(-1)!.id!;

      const after = await readEvents(await join(threadId, runId, lastSeen));
      const resumed = ids(after);
      expect(resumed.length).toBeGreaterThan(1);
      // Ids are chunk numbers of the run's whole stream (all modes), so they rise but need not be contiguous here.
      expect(resumed[0]).toBeGreaterThan(Number(lastSeen));
      expect(resumed).toEqual([...resumed].sort((a, b) => a - b));
      const updates = after.filter((e) => e.event === "updates").map((e) => e.data).join("\n");
      expect(updates).toMatch(/get_weather/);
      expect(updates).toMatch(/Shenzhen/);

      // The whole stream again from the start ("-1", as useStream sends it): what the two halves saw, nothing else.
      const all = ids(await readEvents(await join(threadId, runId, "-1")));
      expect(all).toEqual([Number(lastSeen), ...resumed]);
    });

    it("a join without Last-Event-ID after the run ended still answers with its values, as before", async () => {
      const threadId = await newThread();
      const abort = new AbortController();
      const first = await startStream(threadId, abort);
      const runId = /\/runs\/([^/]+)$/.exec(first.headers.get("content-location") ?? "")?.[1] ?? "";
      await readEvents(first);
      const late = await readEvents(await fetch(`${server.url}/threads/${threadId}/runs/${runId}/stream?stream_mode=values`));
      expect(late.map((e) => e.event)).toEqual(["metadata", "values"]);
    });
  });
});
