import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { isTainted } from "../../src/graph/context-taint.js";
import { toolResultMessage } from "../../src/tools/tool-message.js";

describe("isTainted", () => {
  const ask = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search_docs", args: {} }] });
  it("is false for the user's words alone and true once a tool result is in context", () => {
    expect(isTainted([new HumanMessage("hi"), ask])).toBe(false);
    expect(isTainted([new HumanMessage("hi"), ask, toolResultMessage({ tool: "search_docs", callId: "c1", status: "done", data: "x" })])).toBe(true);
    expect(isTainted([ask, toolResultMessage({ tool: "search_docs", callId: "c1", status: "failed", error: { code: "E", message: "m" } })])).toBe(true);
  });

  it("does not count refusals written by the runtime itself", () => {
    expect(isTainted([ask, toolResultMessage({ tool: "search_docs", callId: "c1", status: "denied", error: { code: "PERMISSION_DENIED", message: "no" } })])).toBe(false);
  });
});
