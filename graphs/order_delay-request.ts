/**
 * Reading an order request, shared by the order scenarios (order_delay,
 * order_check), and the node that asks the user for a missing order number.
 * @module
 */
import { AIMessage, HumanMessage, isHumanMessage, type BaseMessage } from "@langchain/core/messages";
import { interrupt } from "@langchain/langgraph";
import type { ScriptedReply } from "agentrt/testing";

/** The question a request without an order number is answered with. */
export const ORDER_ID_QUESTION = "Which order should I check? Please give me the order number (for example 10086).";

/** The order number in a request ("order 10086", "#10086"), if any. */
export function orderIdIn(request: string): string | undefined {
  return /#?\b(\d{4,})\b/.exec(request)?.[1];
}

function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

/** The order number of the newest user message that names one (the request, or the answer to our question). */
export function requestedOrderId(messages: readonly BaseMessage[]): string | undefined {
  for (const message of [...messages].reverse()) {
    if (!isHumanMessage(message)) continue;
    const id = orderIdIn(textOf(message));
    if (id !== undefined) return id;
  }
  return undefined;
}

/** The answer when the request names no order (order_check, which does not pause). */
export function askForOrderId(): ScriptedReply {
  return { content: ORDER_ID_QUESTION };
}

/** Name of the node that asks for a missing order number. */
export const ASK_ORDER_ID = "ask_order_id";

/**
 * A graph node run before the agent: without an order number in the
 * conversation it pauses the run with `interrupt({ question })`
 * (WAITING_INPUT); the answer joins the conversation as the user's message.
 * The pause is a checkpoint, so the answer may come from another process.
 */
export function askOrderId(state: { messages: BaseMessage[] }): { messages?: BaseMessage[] } {
  if (requestedOrderId(state.messages) !== undefined) return {};
  const askedBefore = state.messages.some((m) => !isHumanMessage(m) && textOf(m).endsWith(ORDER_ID_QUESTION));
  const question = askedBefore ? `I could not find an order number in your answer. ${ORDER_ID_QUESTION}` : ORDER_ID_QUESTION;
  const answer: unknown = interrupt({ question });
  const text = typeof answer === "string" ? answer : JSON.stringify(answer);
  // Store the question actually asked, so the transcript shows the re-ask too.
  return { messages: [new AIMessage(question), new HumanMessage(text)] };
}

/** After {@link askOrderId}: on to `next` once an order number is known, else ask again. */
export function routeAfterAsk(next: string) {
  return (state: { messages: BaseMessage[] }): string => (requestedOrderId(state.messages) === undefined ? ASK_ORDER_ID : next);
}
