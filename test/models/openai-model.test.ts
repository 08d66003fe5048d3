import { AIMessage, type AIMessageChunk, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { tool } from "@langchain/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createOpenAIModel, DEFAULT_OPENAI_MODEL } from "../../src/models/openai-model.js";
import { modelFromEnv, resolveModelChoice } from "../../src/models/model-from-env.js";
import { DEFAULT_MODEL_TIMEOUT_MS } from "../../src/models/model-timeout.js";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../helpers/fake-openai-server.js";

const getWeather = tool(async () => "sunny", {
  name: "get_weather",
  description: "Current weather for a city",
  schema: z.object({ city: z.string() }),
});

describe("OpenAI model over real HTTP", () => {
  let server: FakeOpenAIServer;

  beforeAll(async () => {
    server = await startFakeOpenAIServer({
      reply: ({ body }) => {
        const last = body.messages.at(-1);
        if (last?.role === "tool") return { content: "It is sunny in Beijing.", usage: { promptTokens: 40, completionTokens: 6 } };
        if (body.tools !== undefined && body.tools.length > 0) {
          return {
            toolCalls: [
              { id: "call_bj", name: "get_weather", args: { city: "Beijing" } },
              { id: "call_sh", name: "get_weather", args: { city: "Shanghai" } },
            ],
            usage: { promptTokens: 30, completionTokens: 12 },
          };
        }
        return { content: "hello there friend", usage: { promptTokens: 5, completionTokens: 3 } };
      },
    });
  });
  afterAll(async () => server.close());

  it("parses tool calls with ids and args, and reports usage", async () => {
    const model = modelFromEnv({
      scripted: new FakeListChatModel({ responses: ["unused"] }),
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, AGENTRT_MODEL: "fake-model" },
    });
    const bound = model.bindTools!([getWeather]);
    const reply = await bound.invoke([new HumanMessage("weather in Beijing and Shanghai?")]);

    expect(reply.tool_calls).toEqual([
      { id: "call_bj", name: "get_weather", args: { city: "Beijing" }, type: "tool_call" },
      { id: "call_sh", name: "get_weather", args: { city: "Shanghai" }, type: "tool_call" },
    ]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 30, output_tokens: 12, total_tokens: 42 });
    const request = server.requests.at(-1)!;
    expect(request.body.model).toBe("fake-model");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.body.tools?.[0]?.function.name).toBe("get_weather");
  });

  it("sends tool results back and reads the final answer", async () => {
    const model = createOpenAIModel({ apiKey: "sk-test", baseURL: server.baseURL });
    const reply = await model.invoke([
      new HumanMessage("weather in Beijing?"),
      new AIMessage({ content: "", tool_calls: [{ id: "call_bj", name: "get_weather", args: { city: "Beijing" } }] }),
      new ToolMessage({ tool_call_id: "call_bj", content: "sunny" }),
    ]);
    expect(reply.content).toBe("It is sunny in Beijing.");
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 40, output_tokens: 6 });
    const sent = server.requests.at(-1)!.body;
    expect(sent.model).toBe(DEFAULT_OPENAI_MODEL);
    expect(sent.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_bj", content: "sunny" });
  });

  it("streams text in chunks with usage at the end", async () => {
    const model = createOpenAIModel({ apiKey: "sk-test", baseURL: server.baseURL });
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await model.stream([new HumanMessage("hi")])) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    const merged = chunks.reduce((acc, chunk) => acc.concat(chunk));
    expect(merged.content).toBe("hello there friend");
    expect(merged.usage_metadata).toMatchObject({ input_tokens: 5, output_tokens: 3, total_tokens: 8 });
    expect(server.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it("streams tool calls whose arguments arrive in pieces", async () => {
    const model = createOpenAIModel({ apiKey: "sk-test", baseURL: server.baseURL }).bindTools!([getWeather]);
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await model.stream([new HumanMessage("weather?")])) {
      merged = merged === undefined ? chunk : merged.concat(chunk);
    }
    expect(merged?.tool_calls).toEqual([
      { id: "call_bj", name: "get_weather", args: { city: "Beijing" }, type: "tool_call" },
      { id: "call_sh", name: "get_weather", args: { city: "Shanghai" }, type: "tool_call" },
    ]);
    expect(merged?.usage_metadata).toMatchObject({ input_tokens: 30, output_tokens: 12 });
  });
});

describe("modelFromEnv", () => {
  it("falls back to the scripted model without an API key", () => {
    const scripted = new FakeListChatModel({ responses: ["offline"] });
    expect(modelFromEnv({ scripted, env: {} })).toBe(scripted);
    expect(modelFromEnv({ scripted, env: { OPENAI_API_KEY: "  " } })).toBe(scripted);
  });

  it("resolves key, base URL and model name", () => {
    expect(resolveModelChoice({})).toEqual({ kind: "scripted" });
    expect(resolveModelChoice({ OPENAI_API_KEY: "k" })).toEqual({
      kind: "openai", apiKey: "k", baseURL: undefined, model: DEFAULT_OPENAI_MODEL, timeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
    });
    expect(resolveModelChoice({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://x/v1", AGENTRT_MODEL: "m" })).toEqual({
      kind: "openai", apiKey: "k", baseURL: "http://x/v1", model: "m", timeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
    });
  });

  it("reads the per-attempt timeout from AGENTRT_MODEL_TIMEOUT_MS and refuses one that is not whole ms > 0", () => {
    expect(resolveModelChoice({ OPENAI_API_KEY: "k", AGENTRT_MODEL_TIMEOUT_MS: " 2500 " })).toMatchObject({ timeoutMs: 2500 });
    for (const bad of ["0", "-5", "1.5", "soon"]) {
      expect(() => resolveModelChoice({ OPENAI_API_KEY: "k", AGENTRT_MODEL_TIMEOUT_MS: bad })).toThrow(
        expect.objectContaining({ code: "BAD_INPUT", message: `AGENTRT_MODEL_TIMEOUT_MS must be a whole number of milliseconds > 0 (got ${JSON.stringify(bad)})` }),
      );
    }
  });
});
