// A model that does not answer: each HTTP attempt is traced and counted, the run's deadline cuts the call, and
// an error status is said once.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { startFakeOpenAIServer, type FakeOpenAIServer, type FakeReply } from "../helpers/fake-openai-server.js";

const CONFIG = fileURLToPath(new URL("../fixtures/model-attempts/langgraph.json", import.meta.url));
/** Far past any timeout here, and past the client's own 60 s default: only a cut ends such a call. */
const NEVER = 600_000;

let server: FakeOpenAIServer;
let answer: (index: number) => FakeReply = () => ({ content: "ok" });
let runtime: Runtime;

beforeAll(async () => {
  server = await startFakeOpenAIServer({ reply: (_request, index) => answer(index) });
  process.env.AGENTRT_TEST_MODEL_URL = server.baseURL;
  runtime = Runtime.open({ db: join(mkdtempSync(join(tmpdir(), "agentrt-attempts-")), "a.db"), config: CONFIG });
});
afterAll(async () => {
  await runtime.close();
  await server.close();
  delete process.env.AGENTRT_TEST_MODEL_URL;
});
beforeEach(() => {
  server.requests.length = 0;
});

const modelSpans = async (runId: string) => (await runtime.trace.spans(runId)).filter((s) => s.kind === "model_call");

describe("a model that does not answer", () => {
  it("fails after the client's attempts with each one traced and counted as a model call", async () => {
    answer = () => ({ delayMs: NEVER });
    const started = Date.now();
    const view = await runtime.submit({ graph: "quick_timeout", message: "hi" });
    // Not a timing assertion: three 300 ms attempts end far before even one of the client's 60 s defaults.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(view).toMatchObject({ status: "FAILED", error: { code: "MODEL_UNAVAILABLE" }, usage: { model_calls: 3 } });
    expect(view.error?.message).toMatch(/3 attempts, the last: no answer within 300 ms/);
    expect(server.requests).toHaveLength(3);
    const spans = await modelSpans(view.run_id);
    expect(spans.map((s) => [s.name, s.status, s.error])).toEqual([1, 2, 3].map((n) => [`model_turn 1 attempt ${n}`, "error", "no answer within 300 ms"]));
  });

  it("is cut at the run's deadline, not after the client's timeout", async () => {
    answer = () => ({ delayMs: NEVER });
    const started = Date.now();
    const view = await runtime.submit({ graph: "slow_timeout", message: "hi", budget: { deadlineMs: 500 } });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(view).toMatchObject({ status: "FAILED", error: { code: "DEADLINE_EXCEEDED" }, usage: { model_calls: 1 } });
    expect(view.error?.message).toMatch(/the model call in flight was cut/);
    const spans = await modelSpans(view.run_id);
    expect(spans.map((s) => [s.name, s.status, s.error])).toEqual([["model_turn 1 attempt 1", "error", "cut at the run's deadline"]]);
  });

  it("counts the failed attempts before an answer, and says an error status once", async () => {
    answer = (index) => (index === 0 ? { status: 500, content: "mock internal error" } : { content: "fine" });
    const view = await runtime.submit({ graph: "quick_timeout", message: "hi" });
    expect(view).toMatchObject({ status: "SUCCEEDED", result: "fine", usage: { model_calls: 2 } });
    const spans = await modelSpans(view.run_id);
    expect(spans.map((s) => [s.name, s.status, s.error])).toEqual([
      ["model_turn 1 attempt 1", "error", "HTTP 500: mock internal error"],
      ["model_turn 1", "ok", null],
    ]);

    answer = () => ({ status: 500, content: "mock internal error" });
    const failed = await runtime.submit({ graph: "quick_timeout", message: "hi" });
    expect(failed.error).toMatchObject({ code: "MODEL_UNAVAILABLE", message: "model fake-model answered 500: mock internal error (3 attempts)" });
    expect(failed.usage.model_calls).toBe(3);
  });
});
