// The `debug` and `events` stream modes, read with the official SDK client as Studio reads them.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type AgentServer } from "../../src/server/server.js";
import { graphFile, ROLLBACK_INPUT } from "./harness.js";

let server: AgentServer;
let client: Client;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrt-server-modes-"));
  const config = join(dir, "langgraph.json");
  const chat = fileURLToPath(new URL("./fixtures/chat-graph.ts", import.meta.url));
  writeFileSync(config, JSON.stringify({ graphs: { ops_rollback: `${graphFile("ops_rollback")}:graph`, chat: `${chat}:graph` } }));
  server = await startServer({ port: 0, db: join(dir, "agentrt.db"), config, log: () => undefined, apiKey: "" });
  client = new Client({ apiUrl: server.url });
});
afterAll(async () => {
  await server.close();
});

interface DebugEvent {
  type: "checkpoint" | "task" | "task_result";
  step: number;
  payload: {
    name?: string;
    interrupts?: unknown[];
    checkpoint?: { checkpoint_id: string; thread_id: string } | null;
    config?: { configurable: Record<string, unknown> };
    next?: string[];
  };
}

interface StreamEvent {
  event: string;
  name: string;
  run_id: string;
  metadata: Record<string, unknown>;
  data: { chunk?: { content?: unknown } };
}

async function collect(stream: AsyncIterable<{ event: string; data: unknown }>): Promise<{ event: string; data: unknown }[]> {
  const parts: { event: string; data: unknown }[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("stream modes debug and events", () => {
  it("streams debug checkpoints, tasks and task results of a run to its interrupt, without LangGraph internals", async () => {
    const thread = await client.threads.create();
    const parts = await collect(client.runs.stream(thread.thread_id, "ops_rollback", { input: ROLLBACK_INPUT, streamMode: ["debug", "values"] }));
    expect(parts[0]?.event).toBe("metadata");
    const debug = parts.filter((p) => p.event === "debug").map((p) => p.data as DebugEvent);
    expect(new Set(debug.map((d) => d.type))).toEqual(new Set(["checkpoint", "task", "task_result"]));
    expect(debug.filter((d) => d.type === "task").map((d) => d.payload.name)).toEqual(expect.arrayContaining(["model", "tools"]));
    const checkpoints = debug.filter((d) => d.type === "checkpoint");
    const last = checkpoints.at(-1)!;
    // The last debug checkpoint is the thread's state as stored, and it waits on the rollback approval.
    const state = await client.threads.getState(thread.thread_id);
    expect(last.payload.checkpoint?.checkpoint_id).toBe(state.checkpoint.checkpoint_id);
    expect(last.payload.next).toEqual(state.next);
    expect(Object.keys(last.payload.config?.configurable ?? {}).filter((k) => k.startsWith("__"))).toEqual([]);
    expect(debug.some((d) => d.type === "task_result" && (d.payload.interrupts ?? []).length > 0)).toBe(true);
    // Steps only move forward.
    const steps = checkpoints.map((d) => d.step);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(parts.some((p) => p.event === "values")).toBe(true);
  });

  it("streams streamEvents v2 events: chain, chat model (token by token) starts, streams and ends", async () => {
    const parts = await collect(client.runs.stream(null, "chat", {
      input: { messages: [{ role: "user", content: "Weather in Beijing?" }] },
      streamMode: ["events", "values"],
    }));
    const events = parts.filter((p) => p.event === "events").map((p) => p.data as StreamEvent);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("on_chain_start");
    expect(names).toEqual(expect.arrayContaining(["on_chain_start", "on_chain_end", "on_chat_model_start", "on_chat_model_stream", "on_chat_model_end"]));
    expect(names.indexOf("on_chat_model_start")).toBeLessThan(names.indexOf("on_chat_model_stream"));
    expect(names.lastIndexOf("on_chat_model_stream")).toBeLessThan(names.indexOf("on_chat_model_end"));
    const tokens = events.filter((e) => e.event === "on_chat_model_stream").map((e) => e.data.chunk?.content).join("");
    expect(tokens).toBe("Sunny in Beijing.");
    expect(events.find((e) => e.event === "on_chat_model_start")?.metadata.langgraph_node).toBe("chat");
    // The graph's own chunks still arrive as their modes, not as events.
    const values = parts.filter((p) => p.event === "values").at(-1)?.data as { messages: { content: string }[] };
    expect(values.messages.at(-1)?.content).toBe("Sunny in Beijing.");
    expect(parts.at(-1)?.event).not.toBe("error");
  });

  it("leaves a run without debug or events listeners on its ordinary modes", async () => {
    const parts = await collect(client.runs.stream(null, "chat", { input: { messages: [{ role: "user", content: "Hi" }] }, streamMode: ["updates"] }));
    expect(new Set(parts.map((p) => p.event))).toEqual(new Set(["metadata", "updates"]));
  });
});
