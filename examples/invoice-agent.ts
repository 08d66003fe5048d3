/**
 * The agent of examples/ledger-tool.ts: one tool with a side effect (`send_invoice`, risk "write"), so agentrt puts
 * every call through its ledger: intent before the call, result after, a replay instead of a second call.
 * `send_invoice` writes to an outbox file standing for a real system (e.g. an email API).
 * @module
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { defineAgent, defineTool, ScriptedChatModel } from "agentrt";

/** The outbox next to the run database: every invoice the "email system" sent. */
export const outboxFile = `${process.env.AGENTRT_DB ?? "./agentrt.db"}.outbox.json`;

/** What the outbox holds: one entry per invoice actually sent. */
export const outbox = (): { sent: { key: string; customer: string; amount: number }[] } =>
  existsSync(outboxFile) ? (JSON.parse(readFileSync(outboxFile, "utf8")) as ReturnType<typeof outbox>) : { sent: [] };

const sendInvoice = defineTool({
  name: "send_invoice", description: "Email an invoice to a customer", risk: "write", // write: a side effect, so ledgered
  schema: z.object({ customer: z.string(), amount: z.number() }),
  execute: async ({ customer, amount }, ctx) => {
    const box = outbox();
    box.sent.push({ key: ctx.idempotencyKey, customer, amount });
    writeFileSync(outboxFile, JSON.stringify(box));
    ctx.setExternalOperationId(`invoice_${box.sent.length}`);
    return { sent: true, invoice: `invoice_${box.sent.length}` };
  },
});

const model = new ScriptedChatModel({
  script: ({ turn }) =>
    turn === 1 ? { toolCalls: [{ name: "send_invoice", args: { customer: "acme", amount: 120 } }] } : { content: "Invoice sent to acme." },
});

/** Listed in examples/langgraph.json as invoice_agent. */
export const graph = defineAgent({
  model, tools: [sendInvoice],
  // Called once the ledger has recorded the result, before the step's checkpoint: the worst moment to die.
  hooks: { onToolCall: () => { if (process.env.CRASH_AFTER_SEND === "1") process.kill(process.pid, "SIGKILL"); } },
}).compile();
