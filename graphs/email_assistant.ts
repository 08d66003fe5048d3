/**
 * A foreign agent under agentrt: written with LangChain's own `createAgent` and `humanInTheLoopMiddleware`, not with
 * agentrt's `defineAgent`. "Email alice@example.com that the report is ready" → send_email (the middleware pauses it
 * for approval; agentrt shows it as a pending action) → the answer. Its send_email is a plain LangChain tool, so it
 * gets no idempotency key and no ledger: see README, "Foreign agents".
 * @module
 */
import { isToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createAgent, humanInTheLoopMiddleware, type ReactAgent } from "langchain";
import { modelFromEnv } from "agentrt";
import { openWorld, ScriptedChatModel, type ChatScript, type OpenWorldOptions } from "agentrt/testing";
import { z } from "zod";
import { messagingSystem, type SentMessage } from "./sim/index.js";
import { userRequest } from "./script-kit.js";

const sendEmailArgs = z.object({
  to: z.string().email().describe("The recipient's email address"),
  subject: z.string().min(1).max(200).describe("Subject line"),
  body: z.string().min(1).max(4000).describe("The email's text"),
});

/** Sends an email through the simulated messaging system (`agentrt world` lists it). */
export const sendEmail = tool(
  async (args, config) => {
    // Under agentrt the run's database comes in the context; under another host, AGENTRT_DB names it.
    const db = (config as { context?: { db?: OpenWorldOptions["db"] } }).context?.db;
    const world = openWorld(db === undefined ? {} : { db });
    const outcome = await world.perform({ system: messagingSystem, tool: "send_email", sideEffect: true, signal: config.signal }, ({ state, operationId }) => {
      const number = state.entries("message:").length + 1;
      const message: SentMessage = {
        messageId: `msg_${String(number).padStart(4, "0")}`, operationId: operationId ?? "op_unknown",
        to: args.to, channel: "email", subject: args.subject, text: args.body,
      };
      state.set(`message:${message.messageId}`, message);
      return message;
    });
    return `Sent ${outcome.result.messageId} to ${args.to}.`;
  },
  { name: "send_email", description: "Send an email. It cannot be unsent.", schema: sendEmailArgs },
);

const ADDRESS = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;

/** The offline model: one send_email for the address the user names, then an answer from its result. */
export const emailAssistantScript: ChatScript = ({ messages }) => {
  const request = userRequest(messages);
  const to = ADDRESS.exec(request)?.[0];
  if (to === undefined) return { content: "Whom should I email? Please give an address." };
  const result = messages.findLast((m) => isToolMessage(m));
  if (result === undefined) {
    const about = request.replace(/^.*?\bthat\b\s*/i, "").trim() || request;
    return {
      content: `Drafting an email to ${to}.`,
      toolCalls: [{ name: "send_email", args: { to, subject: "Update", body: `Hello, ${about}` } }],
    };
  }
  const text = typeof result.content === "string" ? result.content : JSON.stringify(result.content);
  return isToolMessage(result) && result.status === "error"
    ? { content: `I did not send the email: ${text}` }
    : { content: `Done: ${text}` };
};

/** The email_assistant agent; langgraph.json lists it (no checkpointer: the host attaches one). */
export const graph: ReactAgent = createAgent({
  model: modelFromEnv({ scripted: new ScriptedChatModel({ script: emailAssistantScript }) }),
  tools: [sendEmail],
  systemPrompt: "You write and send short emails for the user. Sending needs the user's approval.",
  middleware: [
    humanInTheLoopMiddleware({
      interruptOn: {
        send_email: {
          allowedDecisions: ["approve", "edit", "reject"],
          description: "An email is sent immediately and cannot be unsent",
          argsSchema: z.toJSONSchema(sendEmailArgs) as Record<string, unknown>,
        },
      },
    }),
  ],
});
