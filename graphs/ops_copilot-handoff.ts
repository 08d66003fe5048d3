/**
 * How the ops_copilot supervisor hands work to a specialist: one
 * `transfer_to_<specialist>` tool per specialist (the model sees them as
 * tools), answered by the handoff node instead of being executed.
 * @module
 */
import { HumanMessage, isAIMessage, type BaseMessage } from "@langchain/core/messages";
import { defineTool } from "agentrt";
import { toolResultMessage } from "agentrt/tools";
import { z } from "zod";

/** The specialists of ops_copilot, which are also their node names. */
export const SPECIALISTS = ["deploy_specialist", "comms_specialist"] as const;

/** One specialist's node name. */
export type Specialist = (typeof SPECIALISTS)[number];

const DESCRIPTIONS: Record<Specialist, string> = {
  deploy_specialist:
    "Hand a task to the deploy specialist, who reads deployments and logs, rolls back (only with the user's approval) and verifies recovery. Give the whole task in one sentence or two.",
  comms_specialist:
    "Hand a task to the communications specialist, who sends one message. The task must name the recipient and the full text, as 'Send to RECIPIENT: TEXT'.",
};

/** The tool name that hands work to `specialist`. */
export const handoffTool = (specialist: Specialist) => `transfer_to_${specialist}`;

/** The supervisor's handoff tools. Never executed: the handoff node answers their calls. */
export const handoffTools = SPECIALISTS.map((specialist) =>
  defineTool({
    name: handoffTool(specialist),
    description: DESCRIPTIONS[specialist],
    schema: z.object({ task: z.string().min(1).max(4000).describe("What the specialist must do, self-contained") }),
    risk: "read",
    sideEffect: false,
    tags: ["handoff"],
    execute: () => ({ handed_off: specialist }),
  }),
);

const byTool = new Map<string, Specialist>(SPECIALISTS.map((s) => [handoffTool(s), s]));

/**
 * The handoff node: answers every call of the supervisor's last turn (the
 * first handoff is accepted, anything else refused) and gives the accepted
 * specialist its task as a message from the supervisor, so its turn budget
 * starts afresh.
 */
export function handoffNode(state: { messages: BaseMessage[] }): { messages: BaseMessage[]; active: Specialist | null } {
  const last = state.messages.at(-1);
  const calls = last !== undefined && isAIMessage(last) ? last.tool_calls ?? [] : [];
  let active: Specialist | null = null;
  let task = "";
  const replies: BaseMessage[] = calls.map((call) => {
    const specialist = byTool.get(call.name);
    const callId = call.id ?? "";
    if (specialist === undefined || active !== null) {
      const why = specialist === undefined ? `unknown handoff ${call.name}` : "one handoff per turn; ask again after this one reports";
      return toolResultMessage({ tool: call.name, callId, status: "failed", error: { code: "TOOL_ARGS_INVALID", message: why } });
    }
    active = specialist;
    task = typeof call.args.task === "string" ? call.args.task : JSON.stringify(call.args);
    return toolResultMessage({ tool: call.name, callId, status: "done", data: { handed_to: specialist, task } });
  });
  if (active !== null) replies.push(new HumanMessage({ content: task, name: "supervisor" }));
  return { messages: replies, active };
}

/** The final answer a specialist gave after the latest handoff to it, if it has finished. */
export function reportOf(messages: readonly BaseMessage[], specialist: Specialist): string | undefined {
  const tool = handoffTool(specialist);
  const handedAt = messages.findLastIndex((m) => isAIMessage(m) && (m.tool_calls ?? []).some((c) => c.name === tool));
  if (handedAt < 0) return undefined;
  const report = messages.slice(handedAt + 1).find((m) => isAIMessage(m) && (m.tool_calls?.length ?? 0) === 0);
  return report === undefined ? undefined : typeof report.content === "string" ? report.content : JSON.stringify(report.content);
}

/** True once the supervisor has handed work to `specialist`. */
export function wasHandedTo(messages: readonly BaseMessage[], specialist: Specialist): boolean {
  const tool = handoffTool(specialist);
  return messages.some((m) => isAIMessage(m) && (m.tool_calls ?? []).some((c) => c.name === tool));
}
