import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { ScriptedChatModel as FromRoot } from "agentrt";
import { estimateTokens, ScriptedChatModel, type ChatScript } from "agentrt/testing";

const script: ChatScript = ({ turn, tools }) => turn === 1
  ? { toolCalls: tools.map((name, i) => ({ name, args: { i } })) }
  : { content: "final" };
const tools = [
  { type: "function" as const, function: { name: "a", description: "a", parameters: {} } },
  { name: "b", description: "b", schema: {} },
];

describe("ScriptedChatModel", () => {
  it("is exported from agentrt and agentrt/testing", () => {
    expect(FromRoot).toBe(ScriptedChatModel);
  });

  it("emits parallel tool calls with ids derived from the conversation only", async () => {
    const model = new ScriptedChatModel({ script }).bindTools(tools);
    expect(model.boundToolNames).toEqual(["a", "b"]);
    const input = [new HumanMessage("go")];
    const first = (await model.invoke(input)) as AIMessage;
    expect(first.tool_calls?.map((c) => [c.name, c.args])).toEqual([["a", { i: 0 }], ["b", { i: 1 }]]);
    // Another instance (think: another process) replaying the same conversation gets the same ids.
    const replay = (await new ScriptedChatModel({ script }).bindTools(tools).invoke(input)) as AIMessage;
    expect(replay.tool_calls?.map((c) => c.id)).toEqual(first.tool_calls?.map((c) => c.id));
    expect(new Set(first.tool_calls?.map((c) => c.id)).size).toBe(2);
    const other = (await model.invoke([new HumanMessage("different")])) as AIMessage;
    expect(other.tool_calls?.[0]?.id).not.toBe(first.tool_calls?.[0]?.id);
  });

  it("numbers turns from the AI messages so far and answers with content", async () => {
    const model = new ScriptedChatModel({ script });
    const reply = (await model.invoke([
      new HumanMessage("go"),
      new AIMessage({ content: "", tool_calls: [{ id: "x", name: "a", args: {} }] }),
      new ToolMessage({ content: "ok", tool_call_id: "x" }),
    ])) as AIMessage;
    expect(reply.content).toBe("final");
    expect(reply.tool_calls).toEqual([]);
    expect(model.calls.map((c) => c.turn)).toEqual([2]);
  });

  it("reports deterministic token usage and the model name", async () => {
    const model = new ScriptedChatModel({ script: () => ({ content: "12345678" }), modelName: "demo" });
    const reply = (await model.invoke([new HumanMessage("hello")])) as AIMessage;
    expect(reply.usage_metadata).toMatchObject({ output_tokens: 2, total_tokens: reply.usage_metadata!.input_tokens + 2 });
    expect(reply.response_metadata).toMatchObject({ model_name: "demo", tokenUsage: { completionTokens: 2 } });
    expect(model.modelName).toBe("demo");
    expect(estimateTokens("abcde")).toBe(2);
  });

  it("can emit malformed calls: unparseable JSON becomes an invalid tool call", async () => {
    const model = new ScriptedChatModel({
      script: () => ({ toolCalls: [{ name: "nope", args: {} }, { name: "a", args: "{oops" }, { name: "a", args: "[1]" }, { name: "a", args: '{"x":1}' }] }),
    });
    const reply = (await model.invoke([new HumanMessage("go")])) as AIMessage;
    expect(reply.tool_calls?.map((c) => [c.name, c.args])).toEqual([["nope", {}], ["a", { x: 1 }]]);
    expect(reply.invalid_tool_calls?.map((c) => c.args)).toEqual(["{oops", "[1]"]);
    expect(reply.invalid_tool_calls?.every((c) => typeof c.id === "string" && c.error)).toBe(true);
  });
});

describe("ScriptedChatModel streaming", () => {
  const reply = { content: "Rolling payments back to v41 needs your approval.", toolCalls: [{ name: "rollback", args: { service: "payments" } }] };

  it("streams the reply word by word and the chunks add up to the invoked message", async () => {
    const model = new ScriptedChatModel({ script: () => reply });
    const chunks = [];
    for await (const chunk of await model.stream([new HumanMessage("go")])) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.map((c) => c.text).join("")).toBe(reply.content);
    const whole = chunks.reduce((a, b) => a.concat(b));
    const invoked = (await model.invoke([new HumanMessage("go")])) as AIMessage;
    expect(whole.tool_calls).toEqual(invoked.tool_calls);
    expect(whole.usage_metadata).toMatchObject(invoked.usage_metadata!);
    expect(whole.response_metadata).toMatchObject({ model_name: "scripted", finish_reason: "tool_calls" });
    expect(model.calls).toHaveLength(2);
  });

  it("streams tokens through a graph's messages mode, and the state keeps the whole reply", async () => {
    const model = new ScriptedChatModel({ script: () => ({ content: reply.content }) });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addEdge(START, "agent")
      .compile();
    const tokens: string[] = [];
    let final: BaseMessage[] = [];
    for await (const [mode, payload] of await graph.stream({ messages: [new HumanMessage("go")] }, { streamMode: ["messages", "values"] })) {
      if (mode === "messages") tokens.push((payload as [BaseMessage, unknown])[0].text);
      else final = (payload as { messages: BaseMessage[] }).messages;
    }
    expect(tokens.filter((t) => t !== "")).toEqual(reply.content.match(/\s*\S+/g));
    expect(final.at(-1)?.content).toBe(reply.content);
  });

  it("keeps malformed calls invalid when streamed", async () => {
    const model = new ScriptedChatModel({ script: () => ({ toolCalls: [{ name: "a", args: "{oops" }, { name: "a", args: '{"x":1}' }] }) });
    const chunks = [];
    for await (const chunk of await model.stream([new HumanMessage("go")])) chunks.push(chunk);
    const whole = chunks.reduce((a, b) => a.concat(b));
    expect(whole.tool_calls?.map((c) => [c.name, c.args])).toEqual([["a", { x: 1 }]]);
    expect(whole.invalid_tool_calls?.map((c) => c.args)).toEqual(["{oops"]);
  });
});
