// A model service that is down or overloaded ends the turn with MODEL_UNAVAILABLE (dependency down), not INTERNAL.
import { createServer } from "node:net";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { defineAgent } from "../../src/graph/define-agent.js";
import { asModelUnavailable } from "../../src/graph/model-unavailable.js";
import { createOpenAIModel } from "../../src/models/openai-model.js";

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("a model service that cannot answer", () => {
  it("fails the turn with MODEL_UNAVAILABLE when nothing listens at its address", async () => {
    const model = createOpenAIModel({ apiKey: "sk-test", baseURL: `http://127.0.0.1:${await closedPort()}/v1`, maxRetries: 0, timeoutMs: 5000 });
    const graph = defineAgent({ model, tools: [] }).compile();
    const error = await graph.invoke({ messages: [new HumanMessage("hi")] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL_UNAVAILABLE", transient: true, message: expect.stringMatching(/could not be reached/) });
  });

  it("tells overload and outage from other failures", () => {
    expect(asModelUnavailable(Object.assign(new Error("Rate limit reached"), { status: 429 }), "m")).toMatchObject({ code: "MODEL_UNAVAILABLE", details: { status: 429 } });
    expect(asModelUnavailable(Object.assign(new Error("Bad gateway"), { status: 502 }), "m")?.message).toBe("model m answered 502: Bad gateway");
    // The OpenAI SDK's message starts with the status: said once.
    expect(asModelUnavailable(Object.assign(new Error("500 mock internal error"), { status: 500 }), "m")?.message).toBe("model m answered 500: mock internal error");
    expect(asModelUnavailable(Object.assign(new Error("fetch failed"), { cause: { code: "ECONNRESET" } }), "m")?.code).toBe("MODEL_UNAVAILABLE");
    // The caller's fault or a bug stays what it is.
    expect(asModelUnavailable(Object.assign(new Error("Invalid API key"), { status: 401 }), "m")).toBeUndefined();
    expect(asModelUnavailable(new TypeError("x is undefined"), "m")).toBeUndefined();
  });
});
