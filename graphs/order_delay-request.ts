/**
 * Reading an order request, shared by the order scenarios (order_delay, order_check).
 * @module
 */
import type { ScriptedReply } from "agentrt/testing";

/** The order number in a request ("order 10086", "#10086"), if any. */
export function orderIdIn(request: string): string | undefined {
  return /#?\b(\d{4,})\b/.exec(request)?.[1];
}

/**
 * The answer when the request names no order. One function on purpose: the
 * later WAITING_INPUT pause (ask the user, resume with the reply) replaces it here.
 */
export function askForOrderId(): ScriptedReply {
  return { content: "Which order should I check? Please give me the order number (for example 10086)." };
}
