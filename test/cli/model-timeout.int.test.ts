// `--model-timeout-ms` (and AGENTRT_MODEL_TIMEOUT_MS) bound each attempt of a real model that never answers: the
// CLI's run ends MODEL_UNAVAILABLE with its attempts counted, instead of waiting 60 s per attempt.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentrtProcess } from "../helpers/cli-process.js";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../helpers/fake-openai-server.js";

let server: FakeOpenAIServer;
beforeAll(async () => {
  server = await startFakeOpenAIServer({ reply: () => ({ delayMs: 600_000 }) });
});
afterAll(() => server.close());

const modelEnv = () => ({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: server.baseURL, AGENTRT_MODEL: "fake-model" });
const db = () => join(mkdtempSync(join(tmpdir(), "agentrt-mt-")), "m.db");

describe("agentrt run on a model that never answers", () => {
  it.each([
    ["--model-timeout-ms", ["--model-timeout-ms", "300"], {}],
    ["AGENTRT_MODEL_TIMEOUT_MS", [], { AGENTRT_MODEL_TIMEOUT_MS: "300" }],
  ])("ends MODEL_UNAVAILABLE after three attempts of the timeout %s sets", async (_name, flags, env) => {
    const started = Date.now();
    const result = await agentrtProcess(["run", "city_weather", "-m", "Weather for Beijing", "--db", db(), "--json", ...flags], { env: { ...modelEnv(), ...env } });
    // Not a timing assertion: the client's default alone would be 60 s per attempt.
    expect(Date.now() - started).toBeLessThan(50_000);
    expect(result.code, result.stderr).toBe(1);
    const view = JSON.parse(result.stdout) as { status: string; error: { code: string; message: string }; usage: { model_calls: number } };
    expect(view).toMatchObject({ status: "FAILED", error: { code: "MODEL_UNAVAILABLE" }, usage: { model_calls: 3 } });
    expect(view.error.message).toContain("no answer within 300 ms");
  });

  it("refuses a timeout that is not a whole number of ms in one line, exit 2", async () => {
    const result = await agentrtProcess(["run", "city_weather", "-m", "hi", "--db", db(), "--model-timeout-ms", "0"], { env: modelEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([expect.stringMatching(/--model-timeout-ms must be a whole number of milliseconds > 0 \(got "0"\)/)]);
  });
});
