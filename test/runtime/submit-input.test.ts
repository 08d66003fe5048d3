// --message becomes { messages: [...] }: on a graph without a messages channel it is refused (nothing stored)
// instead of being dropped silently. --input goes through the same check as the server's run input: what the
// graph's reducers refuse is BAD_INPUT before anything is stored.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { Runtime } from "../../src/runtime/index.js";
import { runtimeInternals } from "../../src/runtime/internals.js";

describe("submitting a message", () => {
  it("is refused for a graph without a messages channel; its state goes in as input", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-submit-input-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { slow: `${fileURLToPath(new URL("../server/fixtures/slow-graph.ts", import.meta.url))}:graph` } }));
    process.env.SLOW_STEP_MS = "1";
    onTestFinished(() => {
      delete process.env.SLOW_STEP_MS;
    });
    const runtime = Runtime.open({ db: join(dir, "runs.db"), config });
    onTestFinished(() => runtime.close());
    await expect(runtime.submit({ graph: "slow", message: "hi" })).rejects.toMatchObject({
      code: "BAD_INPUT", message: expect.stringMatching(/graph slow has no messages channel for --message: pass its state with --input JSON \(keys: steps\)/),
    });
    expect(await runtimeInternals(runtime).runs.list()).toEqual([]);
    expect(await runtime.submit({ graph: "slow", input: { steps: [] } })).toMatchObject({ status: "SUCCEEDED", result: { steps: ["a", "b", "c"] } });
  });

  it("refuses --input its graph's reducers refuse, storing nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-submit-input-"));
    const config = join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { chat: `${fileURLToPath(new URL("../server/fixtures/chat-graph.ts", import.meta.url))}:graph` } }));
    const runtime = Runtime.open({ db: join(dir, "runs.db"), config });
    onTestFinished(() => runtime.close());
    await expect(runtime.submit({ graph: "chat", input: { messages: [5] } })).rejects.toMatchObject({
      code: "BAD_INPUT", message: expect.stringMatching(/^input\.messages\[0\]: 5 is not a message/),
    });
    await expect(runtime.submit({ graph: "chat", input: "hello" })).rejects.toMatchObject({ code: "BAD_INPUT" });
    expect(await runtimeInternals(runtime).runs.list()).toEqual([]);
    expect(await runtime.submit({ graph: "chat", input: { messages: ["hi"] } })).toMatchObject({ status: "SUCCEEDED" });
  });
});
