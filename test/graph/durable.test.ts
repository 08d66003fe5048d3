import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, readPendingActions, resumeCommand, type AgentRunConfig } from "agentrt";
import { openDatabase, type RunDatabase, type SqliteDatabase } from "agentrt/db";
import { type AgentRunContext } from "agentrt/graph";
import { SqliteSaver } from "agentrt/checkpointers";
import { ScriptedChatModel } from "agentrt/testing";

const dirs: string[] = [];
afterEach(() => { for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true }); });

function agent(executed: string[], seenDb: (RunDatabase | undefined)[]) {
  const restart = defineTool({
    name: "restart", description: "Restart a service", risk: "destructive", schema: z.object({ service: z.string() }),
    execute: ({ service }, ctx) => { executed.push(`${service}@${ctx.idempotencyKey}`); seenDb.push(ctx.db); return { ok: true }; },
  });
  const model = new ScriptedChatModel({
    script: ({ turn }) => turn === 1
      ? { toolCalls: [{ name: "restart", args: { service: "api" } }, { name: "restart", args: { service: "web" } }] }
      : { content: "restarted" },
  });
  return defineAgent({ model, tools: [restart] });
}

describe("agent graphs on a durable checkpointer", () => {
  it("decides two pending approvals from fresh saver and graph instances, as another process would", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentrt-graph-"));
    dirs.push(dir);
    const path = join(dir, "agentrt.db");
    const db = openDatabase(path);
    const executed: string[] = [];
    const seenDb: (RunDatabase | undefined)[] = [];
    const config: AgentRunConfig = { configurable: { thread_id: "t1", run_id: "run_1", user: "alice" }, context: { db } };
    // Each step opens its own saver and compiles its own graph, sharing only the file.
    const step = async <T>(fn: (graph: ReturnType<ReturnType<typeof agent>["compile"]>) => Promise<T>) => {
      const saver = SqliteSaver.create({ path });
      try {
        return await fn(agent(executed, seenDb).compile({ checkpointer: saver }));
      } finally {
        saver.close();
      }
    };
    await step((g) => g.invoke({ messages: [new HumanMessage("restart api and web")] }, config));
    const pending = await step(async (g) => readPendingActions(await g.getState(config)));
    expect(pending).toHaveLength(2);
    const web = pending.find((p) => p.args.service === "web")!;
    await step((g) => g.invoke(resumeCommand(pending, { action_id: web.action_id, args_hash: web.args_hash, decision: "approve", by: "alice" }), config));
    const left = await step(async (g) => readPendingActions(await g.getState(config)));
    expect(left.map((p) => p.args.service)).toEqual(["api"]);
    const out = await step((g) => g.invoke(resumeCommand(left, { ...left[0]!, decision: "approve", by: "alice" }), config));
    expect(out.result).toBe("restarted");
    expect(executed.map((e) => e.split("@")[0])).toEqual(["web", "api"]);
    expect(executed.every((e) => e.split("@")[1]!.startsWith("run_1:call_"))).toBe(true);
    expect(seenDb.every((d) => d === db)).toBe(true);
    db.close();
  });

  it("never writes the context (db handle, hooks) into checkpoints", async () => {
    const saver = new MemorySaver();
    const marker = "CONTEXT_MARKER_7f3a";
    const context = { db: { marker } as unknown as SqliteDatabase, hooks: { onToolCall: () => marker } } satisfies AgentRunContext;
    const graph = agent([], []).compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "t1", run_id: "run_1", user: "alice" }, context };
    await graph.invoke({ messages: [new HumanMessage("go")] }, config);
    const pending = readPendingActions(await graph.getState(config));
    await graph.invoke(resumeCommand(pending, pending.map((p) => ({ ...p, decision: "approve" as const, by: "alice" }))), config);
    const stored = JSON.stringify([saver.storage, saver.writes], (_k, v: unknown) =>
      v instanceof Uint8Array ? new TextDecoder().decode(v) : v);
    expect(stored).toContain("restart");
    expect(stored).not.toContain(marker);
  });
});
