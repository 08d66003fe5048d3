// Over HTTP, a run paused by a plain interrupt() (order_delay without an order number) resumes with `command: { resume: "text" }`.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type AgentServer } from "../../src/server/server.js";
import { graphFile } from "./harness.js";

let server: AgentServer;
let client: Client;

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  const dir = mkdtempSync(join(tmpdir(), "agentrt-server-input-"));
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify({ graphs: { order_delay: `${graphFile("order_delay")}:graph` } }));
  server = await startServer({ port: 0, db: join(dir, "agentrt.db"), config, log: () => undefined, apiKey: "" });
  client = new Client({ apiUrl: server.url, apiKey: null });
});

afterAll(async () => {
  await server.close();
});

describe("input over HTTP", () => {
  it("asks for the order number, then resumes with a plain string", async () => {
    const thread = await client.threads.create();
    const asked = (await client.runs.wait(thread.thread_id, "order_delay", { input: { messages: [{ role: "user", content: "Is my order late?" }] } })) as {
      __interrupt__?: { value: unknown; id: string }[];
    };
    // As for an approval: the waiting run's answer carries the question, so an SDK app knows it must answer.
    expect(JSON.stringify(asked.__interrupt__)).toContain("Which order should I check?");
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const waiting = await client.threads.getState(thread.thread_id);
    expect(JSON.stringify(waiting.tasks)).toContain("Which order should I check?");

    const done = (await client.runs.wait(thread.thread_id, "order_delay", { command: { resume: "order 10086" } })) as { result?: string };
    expect(done.result).toMatch(/Order 10086 .* is delayed/);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
    expect((await client.runs.list(thread.thread_id)).map((r) => r.status)).toEqual(["success"]);
  });
});
