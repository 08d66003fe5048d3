import { createHash } from "node:crypto";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type ToolCall } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ScriptedChatModel } from "agentrt/testing";

/** The transcript the scripted model's ids and input tokens are defined by, written out as it was first built. */
function referenceTranscript(messages: readonly BaseMessage[]): string {
  return messages.map((message) => {
    const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
    const calls = "tool_calls" in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0
      ? JSON.stringify(message.tool_calls.map((c: ToolCall) => [c.id, c.name, c.args]))
      : "";
    return `${message.getType()}:${content}${calls}`;
  }).join("\n");
}

const conversation: BaseMessage[] = [
  new SystemMessage("rules"),
  new HumanMessage("héllo 👋 \"quoted\"\nline"),
  new HumanMessage({ content: [{ type: "text", text: "part" }, { type: "text", text: "two" }] }),
  new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "a", args: { x: 1, s: "é\u2028" } }, { id: "c2", name: "b", args: {} }] }),
  new ToolMessage({ tool_call_id: "c1", content: "{\"ok\":true}" }),
  new ToolMessage({ tool_call_id: "c2", content: [{ type: "text", text: "done" }] }),
  new AIMessage({ content: [{ type: "text", text: "thinking" }], invalid_tool_calls: [{ id: "c3", name: "a", args: "{oops", error: "bad", type: "invalid_tool_call" }] }),
  new AIMessage({ content: "plain" }),
];

describe("ScriptedChatModel transcript", () => {
  it("derives call ids and input tokens from the whole conversation, exactly as before", async () => {
    const model = new ScriptedChatModel({ script: () => ({ content: "ok", toolCalls: [{ name: "a" }, { name: "b", args: { y: 2 } }] }) });
    const reply = (await model.invoke(conversation)) as AIMessage;
    const transcript = referenceTranscript(conversation);
    const id = (i: number, name: string) => `call_${createHash("sha256").update(`${transcript}\n#${i}:${name}`).digest("hex").slice(0, 24)}`;
    expect(reply.tool_calls?.map((c) => c.id)).toEqual([id(0, "a"), id(1, "b")]);
    expect(reply.tool_calls?.map((c) => c.id)).toEqual(GOLDEN_IDS);
    expect(reply.usage_metadata?.input_tokens).toBe(Math.ceil(transcript.length / 4));
    expect(reply.usage_metadata?.input_tokens).toBe(GOLDEN_INPUT_TOKENS);
  });

  it("counts the input tokens of a reply without calls from the same transcript", async () => {
    const model = new ScriptedChatModel({ script: () => ({ content: "ok" }) });
    for (let n = 0; n <= conversation.length; n++) {
      const messages = conversation.slice(0, n);
      const reply = (await model.invoke(messages)) as AIMessage;
      expect(reply.usage_metadata?.input_tokens).toBe(Math.ceil(referenceTranscript(messages).length / 4));
    }
  });
});

const GOLDEN_IDS = ["call_471df82d9ca43d9aca5a55b1", "call_3ad6787e44f81ac74770dc24"];
const GOLDEN_INPUT_TOKENS = 65;
