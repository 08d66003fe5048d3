import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent, defineTool, type ModelCallEvent } from "agentrt";
import { buildContext, readUsage } from "agentrt/graph";
import { ScriptedChatModel } from "agentrt/testing";

const ping = defineTool({ name: "ping", description: "ping", risk: "read", schema: z.object({}), execute: () => "pong" });

describe("model turn", () => {
  it("records token usage per call in state and in the hooks", async () => {
    const model = new ScriptedChatModel({
      modelName: "scripted-1",
      script: ({ turn }) => (turn === 1 ? { toolCalls: [{ name: "ping" }] } : { content: "done" }),
    });
    const agentEvents: ModelCallEvent[] = [];
    const runEvents: ModelCallEvent[] = [];
    const graph = defineAgent({ model, tools: [ping], hooks: { onModelCall: (e) => agentEvents.push(e) } })
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke(
      { messages: [new HumanMessage("ping please")] },
      { configurable: { thread_id: "t" }, context: { hooks: { onModelCall: (e: ModelCallEvent) => runEvents.push(e) } } },
    );
    const replies = out.messages.filter((m): m is AIMessage => m instanceof AIMessage);
    const expected = replies.map((m) => m.usage_metadata!);
    expect(out.usage).toEqual({
      inputTokens: expected[0]!.input_tokens + expected[1]!.input_tokens,
      outputTokens: expected[0]!.output_tokens + expected[1]!.output_tokens,
      modelCalls: 2,
    });
    expect(out.usage.inputTokens).toBeGreaterThan(0);
    expect(agentEvents).toEqual(runEvents);
    expect(agentEvents.map((e) => [e.model, e.turn, e.inputTokens, e.outputTokens])).toEqual(
      expected.map((u, i) => ["scripted-1", i + 1, u.input_tokens, u.output_tokens]),
    );
    expect(agentEvents[0]!.endedAt).toBeGreaterThanOrEqual(agentEvents[0]!.startedAt);
    expect(out.turns).toBe(2);
  });

  it("stops with MAX_STEPS_EXCEEDED when the model never answers", async () => {
    const model = new ScriptedChatModel({ script: () => ({ toolCalls: [{ name: "ping" }] }) });
    const graph = defineAgent({ model, tools: [ping], limits: { maxTurns: 3 } }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("loop")] }, { configurable: { thread_id: "t" } });
    expect(out.error).toMatchObject({ code: "MAX_STEPS_EXCEEDED" });
    expect(out.result).toBeNull();
    expect(model.calls).toHaveLength(3);
    expect(out.steps).toHaveLength(3);
  });

  it("raises LangGraph's recursion limit to fit a large maxTurns", async () => {
    const model = new ScriptedChatModel({ script: () => ({ toolCalls: [{ name: "ping" }] }) });
    const graph = defineAgent({ model, tools: [ping], limits: { maxTurns: 15 } }).compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("loop")] }, { configurable: { thread_id: "t" } });
    expect(out.error).toMatchObject({ code: "MAX_STEPS_EXCEEDED" });
    expect(model.calls).toHaveLength(15);
  });

  it("counts the turn limit per run, so a thread can go on with a new message", async () => {
    const model = new ScriptedChatModel({
      script: ({ messages }) => (messages.at(-1)?.getType() === "human" ? { toolCalls: [{ name: "ping" }] } : { content: "ok" }),
    });
    const graph = defineAgent({ model, tools: [ping], limits: { maxTurns: 2 } }).compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    for (const text of ["one", "two", "three"]) {
      const out = await graph.invoke({ messages: [new HumanMessage(text)] }, config);
      expect(out.error).toBeNull();
      expect(out.result).toBe("ok");
    }
  });

  it("a new request clears the thread's earlier stop and answer, and writes neither while they stay unchanged", async () => {
    // "loop" never answers (a stop after 2 turns); any other request calls ping once, then answers with its text.
    const model = new ScriptedChatModel({
      script: ({ messages }) => {
        const request = messages.findLast((m) => m.getType() === "human")?.text;
        return request === "loop" || messages.at(-1)?.getType() === "human" ? { toolCalls: [{ name: "ping" }] } : { content: request };
      },
    });
    const graph = defineAgent({ model, tools: [ping], limits: { maxTurns: 2 } }).compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    expect(await graph.invoke({ messages: [new HumanMessage("loop")] }, config)).toMatchObject({ error: { code: "MAX_STEPS_EXCEEDED" }, result: null });
    expect(await graph.invoke({ messages: [new HumanMessage("first")] }, config)).toMatchObject({ error: null, result: "first" });
    const seen: Array<Record<string, unknown>> = [];
    for await (const chunk of await graph.stream({ messages: [new HumanMessage("second")] }, { ...config, streamMode: "updates" })) {
      const update = (chunk as { model?: Record<string, unknown> }).model;
      if (update !== undefined) seen.push(update);
    }
    // The calling turn clears "first"; the answering one sets "second"; error stays null, unwritten.
    expect(seen.map((u) => ["result" in u ? u.result : "-", "error" in u ? u.error : "-"])).toEqual([[null, "-"], ["second", "-"]]);
    expect((await graph.getState(config)).values).toMatchObject({ error: null, result: "second" });
  });

  it("offers only the relevant tools per turn when toolSelection is set", async () => {
    const weather = defineTool({
      name: "get_weather", description: "Current weather for a city", risk: "read", schema: z.object({ city: z.string() }), execute: () => "sunny",
    });
    const noise = Array.from({ length: 100 }, (_, i) =>
      defineTool({ name: `util_${i}`, description: `Unrelated utility ${i}`, risk: "read", schema: z.object({}), execute: () => null }));
    const model = new ScriptedChatModel({
      script: ({ turn, tools }) => (turn === 1 && tools.includes("get_weather")
        ? { toolCalls: [{ name: "get_weather", args: { city: "Oslo" } }] } : { content: "done" }),
    });
    const graph = defineAgent({ model, tools: [...noise, weather, ping], toolSelection: { max: 2, pinned: ["ping"] } })
      .compile({ checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("weather in Oslo?")] }, { configurable: { thread_id: "t" } });
    expect(out.result).toBe("done");
    expect(model.calls[0]!.tools).toContain("get_weather");
    expect(model.calls[0]!.tools).toContain("ping");
    expect(model.calls[0]!.tools.length).toBeLessThanOrEqual(2);
    expect(model.calls[1]!.tools).toContain("get_weather");
  });

  it("puts instructions first and drops stray system messages from the thread", () => {
    const context = buildContext([new SystemMessage("old"), new HumanMessage("hi")], "rules");
    expect(context.map((m) => [m.getType(), m.content])).toEqual([["system", "rules"], ["human", "hi"]]);
  });

  it("lists unparseable calls again with empty arguments so every tool result has its call", () => {
    const ai = new AIMessage({
      content: "",
      tool_calls: [{ id: "a", name: "ping", args: {} }],
      invalid_tool_calls: [{ id: "b", name: "ping", args: "{oops", error: "bad json", type: "invalid_tool_call" }],
    });
    const [resent] = buildContext([ai], undefined) as [AIMessage];
    expect(resent.tool_calls?.map((c) => [c.id, c.args])).toEqual([["a", {}], ["b", {}]]);
  });

  it("answers a call that later input superseded as not performed, in the context only; a running turn's calls are left", () => {
    const asked = new AIMessage({ content: "", tool_calls: [{ id: "r", name: "rollback", args: {} }, { id: "p", name: "ping", args: {} }] });
    const thread = [new HumanMessage("roll back?"), asked, new ToolMessage({ tool_call_id: "p", content: "pong" }), new HumanMessage("go ahead")];
    const context = buildContext(thread, undefined);
    expect(context.map((m) => [m.getType(), (m as ToolMessage).tool_call_id ?? null])).toEqual([
      ["human", null], ["ai", null], ["tool", "p"], ["tool", "r"], ["human", null],
    ]);
    expect(context[3]!.content).toMatch(/^not performed/);
    expect(thread).toHaveLength(4);
    expect(buildContext([new HumanMessage("roll back?"), asked], undefined)).toHaveLength(2);
  });

  it("reads usage from provider metadata when usage_metadata is absent", () => {
    const message = new AIMessage({ content: "x", response_metadata: { tokenUsage: { promptTokens: 7, completionTokens: 3 } } });
    expect(readUsage(message)).toEqual({ inputTokens: 7, outputTokens: 3 });
  });
});
