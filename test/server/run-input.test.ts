// A run's input is checked against its graph before anything is stored: input LangGraph's reducers refuse
// (`{ messages: 5 }`, `"hello"`) is a 422 on every run-creating endpoint and leaves no thread, run or
// checkpoint behind, while every message shape LangGraph accepts keeps working.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { fixtureEntry, graphEntry, testServerForFile } from "./harness.js";
import { httpCall } from "./http-call.js";

// The offline scripted model, whatever this shell has set.
delete process.env.OPENAI_API_KEY;
const ctx = testServerForFile({}, { city_weather: graphEntry("city_weather"), chat: fixtureEntry("chat-graph") });

const call = (method: string, path: string, body?: unknown) => httpCall(ctx.server.url, method, path, body);

const threadCount = async (): Promise<number> => Number((await call("POST", "/threads/count", {})).json);

describe("run input over HTTP", () => {
  it("refuses input the graph's reducers refuse, on every run endpoint, storing nothing", async () => {
    const thread = String((await call("POST", "/threads", {})).json.thread_id);
    const before = await threadCount();
    const bad: [string, unknown][] = [
      ["/runs", { messages: 5 }],
      ["/runs/wait", { messages: 5 }],
      ["/runs/stream", { messages: [{ role: "user", content: "hi" }, { foo: 1 }] }],
      [`/threads/${thread}/runs`, { messages: 5 }],
      [`/threads/${thread}/runs/wait`, { messages: null }],
      [`/threads/${thread}/runs/stream`, { messages: 5 }],
      // A thread made on the fly for the run is not made either.
      ["/threads/on-the-fly/runs/wait", { messages: 5 }],
      ["/runs/wait", "hello"],
      [`/threads/${thread}/runs`, ["hello"]],
      // city_weather's state schema types its fields: LangGraph's own validation, ahead of storing.
      ["/runs/wait", { messages: [{ role: "user", content: "Weather in Beijing?" }], turns: "many" }],
    ];
    for (const [path, input] of bad) {
      const answer = await call("POST", path, { assistant_id: "city_weather", input, if_not_exists: "create" });
      expect(answer.status, `${path} ${JSON.stringify(input)}`).toBe(422);
      expect(answer.json.code).toBe("BAD_INPUT");
      expect(answer.json.message).not.toContain("\n");
    }
    const messages = await call("POST", "/runs", { assistant_id: "city_weather", input: { messages: [{ role: "user", content: "hi" }, 5] } });
    expect(messages.json.message).toMatch(/^input\.messages\[1\]: 5 is not a message/);
    expect((await call("POST", "/runs/wait", { assistant_id: "city_weather", input: "hello" })).json.message).toMatch(/input of graph city_weather must be an object of its state keys \(messages, .*\), got a string/);
    expect((await call("POST", "/runs", { assistant_id: "city_weather", input: { turns: "many" } })).json.message).toMatch(/turns/);

    expect(await threadCount()).toBe(before);
    expect((await call("GET", "/threads/on-the-fly")).status).toBe(404);
    expect((await call("GET", `/threads/${thread}/runs`)).json).toEqual([]);
    expect((await call("POST", `/threads/${thread}/history`, {})).json).toEqual([]);
    const listed = await call("POST", "/threads/search", { limit: 100 });
    expect(listed.status).toBe(200);
    expect(listed.json.some((t: { error?: unknown }) => t.error !== undefined)).toBe(false);
  });

  it("accepts every message shape LangGraph does, on a StateSchema graph and an Annotation graph", async () => {
    const shapes: unknown[] = [
      "What is the weather in Beijing?",
      { role: "user", content: "What is the weather in Beijing?" },
      { type: "human", content: "What is the weather in Beijing?" },
      { type: "human", content: [{ type: "text", text: "What is the weather in Beijing?" }], id: "m-blocks" },
      ["user", "What is the weather in Beijing?"],
      // A LangChain message as JSON.stringify writes it ({ lc, type: "constructor", id, kwargs }).
      JSON.parse(JSON.stringify(new HumanMessage("What is the weather in Beijing?"))),
    ];
    for (const graph of ["city_weather", "chat"]) {
      for (const message of shapes) {
        for (const messages of [[message], message]) {
          const done = (await ctx.client.runs.wait(null, graph, { input: { messages } })) as { __error__?: unknown; messages: { type: string }[] };
          expect(done.__error__, `${graph} ${JSON.stringify(messages)}`).toBeUndefined();
          expect(done.messages.map((m) => m.type)[0]).toBe("human");
        }
      }
    }
    // Input that starts nothing new is LangGraph's business, not refused: no input, an empty object, unknown keys.
    expect((await call("POST", "/runs/wait", { assistant_id: "chat", input: {} })).status).toBe(200);
    expect((await call("POST", "/runs/wait", { assistant_id: "chat", input: { messages: [], note: 5 } })).status).toBe(200);
  });

  it("accepts a RemoveMessage of a message its thread has, though an empty thread would refuse it", async () => {
    const thread = await ctx.client.threads.create();
    const first = (await ctx.client.runs.wait(thread.thread_id, "chat", { input: { messages: [{ role: "user", content: "Hi", id: "m-1" }] } })) as { messages: { id: string }[] };
    expect(first.messages.map((m) => m.id)[0]).toBe("m-1");
    const removed = (await ctx.client.runs.wait(thread.thread_id, "chat", { input: { messages: [{ type: "remove", id: "m-1" }] } })) as { __error__?: unknown; messages: { id: string }[] };
    expect(removed.__error__).toBeUndefined();
    expect(removed.messages.map((m) => m.id)).not.toContain("m-1");
    const elsewhere = await call("POST", "/runs/wait", { assistant_id: "chat", input: { messages: [{ type: "remove", id: "m-1" }] } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json.message).toMatch(/doesn't exist/);
  });

  it("keeps the SDK's stream of an AIMessage history working (agent-chat-ui resends what it shows)", async () => {
    const history = [new HumanMessage({ content: "Weather in Beijing?", id: "h-1" }), new AIMessage({ content: "Sunny.", id: "a-1" })];
    const input = { messages: [...JSON.parse(JSON.stringify(history)), { type: "human", content: "And Shanghai?", id: "h-2" }] };
    const events: string[] = [];
    for await (const part of ctx.client.runs.stream(null, "chat", { input, streamMode: "values" })) events.push(part.event);
    expect(events).toContain("values");
    expect(events).not.toContain("error");
  });
});

describe("state updates over HTTP", () => {
  it("refuses values the graph's reducers refuse, changing nothing", async () => {
    const thread = await ctx.client.threads.create();
    await ctx.client.runs.wait(thread.thread_id, "chat", { input: { messages: [{ role: "user", content: "Hi" }] } });
    const before = await ctx.client.threads.getState(thread.thread_id);
    const refused = await call("POST", `/threads/${thread.thread_id}/state`, { values: { messages: 5 } });
    expect(refused.status).toBe(422);
    expect(refused.json.message).toMatch(/^values\.messages: 5 is not a message/);
    expect((await call("POST", `/threads/${thread.thread_id}/state`, { values: "hello" })).status).toBe(422);
    expect((await ctx.client.threads.getState(thread.thread_id)).checkpoint).toEqual(before.checkpoint);
    const edited = await call("POST", `/threads/${thread.thread_id}/state`, { values: { messages: [{ type: "human", content: "Hello" }] } });
    expect(edited.status).toBe(200);
  });
});
