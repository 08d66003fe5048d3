/**
 * Taint: whether untrusted content (tool results, documents) has entered an
 * agent's context. Derived from the messages alone, so a resume in another
 * process reaches the same verdict.
 * @module
 */
import { isToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Send } from "@langchain/langgraph";
import { readEnvelope } from "../tools/tool-message.js";

/**
 * True once any tool result the outside world could have written is in
 * `messages`. Denials and rejections are written by the runtime itself, so
 * they do not taint.
 */
export function isTainted(messages: readonly BaseMessage[]): boolean {
  return messages.some((m) => {
    if (!isToolMessage(m)) return false;
    const status = readEnvelope(m)?.status;
    return status !== "denied" && status !== "rejected";
  });
}

/** Marks each `Send` to the tool node with whether the context that produced its call was tainted. */
export function markTaint(sends: Send[] | string, messages: readonly BaseMessage[]): Send[] | string {
  if (typeof sends === "string") return sends;
  const tainted = isTainted(messages);
  return sends.map((s) => new Send(s.node, { ...(s.args as object), tainted }));
}
