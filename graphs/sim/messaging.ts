/**
 * Simulated messaging: every message sent is stored, so tests can count
 * notifications, and a repeated idempotency key never sends twice.
 * @module
 */
import { defineTool } from "agentrt";
import { callSim, type SimSystem } from "agentrt/testing";
import { z } from "zod";

/** A stored message. */
export interface SentMessage {
  messageId: string;
  operationId: string;
  to: string;
  channel: "chat" | "email";
  subject: string | null;
  text: string;
}

/** The messaging system; its state is the list of sent messages. */
export const messagingSystem: SimSystem = { name: "messaging", seed: {} };

/** Sends a message to a person. */
export const sendMessage = defineTool({
  name: "send_message",
  description:
    "Send a message to a person (for example a sales rep id from get_sales_rep, or an email address). It is delivered immediately and cannot be unsent, so send once with the final text.",
  schema: z.object({
    to: z.string().min(1).describe('Recipient: a person id such as "rep_wang" or an email address'),
    text: z.string().min(1).max(4000).describe("The message body"),
    subject: z.string().max(200).optional().describe("Optional subject line"),
    channel: z.enum(["chat", "email"]).optional().describe('Delivery channel; default "chat"'),
  }),
  risk: "write",
  sideEffect: true,
  idempotent: true,
  tags: ["messaging", "notify"],
  execute: (args, ctx) =>
    callSim(ctx, { system: messagingSystem, tool: "send_message", sideEffect: true }, ({ state, operationId }) => {
      const number = state.entries("message:").length + 1;
      const message: SentMessage = {
        messageId: `msg_${String(number).padStart(4, "0")}`,
        operationId: operationId ?? "op_unknown",
        to: args.to,
        channel: args.channel ?? "chat",
        subject: args.subject ?? null,
        text: args.text,
      };
      state.set(`message:${message.messageId}`, message);
      return { delivered: true, messageId: message.messageId, operationId: message.operationId, to: message.to, channel: message.channel };
    }),
});
