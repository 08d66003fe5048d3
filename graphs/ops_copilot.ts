/**
 * Seed 000 (project B): several agents. A supervisor (a model turn whose
 * tools are handoffs) hands sub-tasks to specialists — the deploy specialist
 * and the comms specialist, each a compiled agentrt agent added as a subgraph
 * node — and answers once they have reported. Studio draws the hierarchy
 * with `getGraph({ xray: true })`.
 * @module
 */
import type { BaseMessage } from "@langchain/core/messages";
import { END, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { AgentState, modelFromEnv } from "agentrt";
import { createModelTurnNode } from "agentrt/graph";
import { ToolRegistry } from "agentrt/tools";
import { ScriptedChatModel, type ChatScript } from "agentrt/testing";
import { z } from "zod";
import { handoffNode, handoffTool, handoffTools, reportOf, SPECIALISTS, wasHandedTo, type Specialist } from "./ops_copilot-handoff.js";
import { commsSpecialist, deploySpecialist } from "./ops_copilot-specialists.js";
import { userRequest } from "./script-kit.js";

const KNOWN_SERVICES = ["payments", "checkout", "search"];
const NOTIFY = /\b(notify|tell|inform|message|update|let)\b/i;

/** Who the comms specialist should tell: an address or id named after "to"/"notify", else the service's on-call. */
export function recipientIn(request: string, service: string): string {
  const email = /[\w.+-]+@[\w-]+(\.[\w-]+)+/.exec(request)?.[0];
  if (email !== undefined) return email;
  const named = /\b(?:notify|tell|inform|message)\s+(rep_\w+|[\w-]+-oncall|[\w-]+-team)\b/i.exec(request)?.[1];
  return named ?? `${service}-oncall`;
}

const handoff = (specialist: Specialist, task: string, content: string) => ({
  content, toolCalls: [{ name: handoffTool(specialist), args: { task } }],
});

/** The supervisor's offline routing: deploy specialist first, then (if asked) the comms specialist, then the answer. */
export const supervisorScript: ChatScript = ({ messages }) => {
  const request = userRequest(messages);
  const service = KNOWN_SERVICES.find((s) => request.toLowerCase().includes(s)) ?? "payments";
  if (!wasHandedTo(messages, "deploy_specialist")) {
    const task = `Investigate the latest ${service} deploy: if it failed, find the cause in the logs, roll back with the user's approval and verify that ${service} recovered.`;
    return handoff("deploy_specialist", task, `Handing the ${service} investigation to the deploy specialist.`);
  }
  const deployReport = reportOf(messages, "deploy_specialist") ?? "the deploy specialist did not report";
  const wantsUpdate = NOTIFY.test(request);
  if (wantsUpdate && !wasHandedTo(messages, "comms_specialist")) {
    const to = recipientIn(request, service);
    return handoff("comms_specialist", `Send to ${to}: [${service}] ${deployReport}`, `Asking the comms specialist to update ${to}.`);
  }
  const commsReport = wantsUpdate ? reportOf(messages, "comms_specialist") ?? "the comms specialist did not report" : undefined;
  return { content: [`Deploy: ${deployReport}`, ...(commsReport === undefined ? [] : [`Comms: ${commsReport}`])].join("\n") };
};

/** The shared state: the agent fields every specialist reads and writes, plus who has the task now. */
export const CopilotState = new StateSchema({
  messages: AgentState.fields.messages,
  turns: AgentState.fields.turns,
  result: AgentState.fields.result,
  error: AgentState.fields.error,
  // Usage and steps stay out: a subgraph returns its whole state, so summing reducers would count twice.
  active: z.enum(SPECIALISTS).nullable().default(null),
});

const supervisor = createModelTurnNode({
  model: modelFromEnv({ scripted: new ScriptedChatModel({ script: supervisorScript }) }),
  registry: ToolRegistry.create(handoffTools),
  instructions:
    "You are the supervisor of an ops team. Hand each sub-task to the right specialist with a transfer_to_* tool, one at a time; " +
    "when the user asks for an update to be sent, have the comms specialist send the deploy specialist's findings. Then answer the user with what was done.",
  maxTurns: 6,
});

function afterSupervisor(state: { messages: BaseMessage[]; error: unknown; result: string | null }): "handoff" | typeof END {
  return state.error == null && state.result === null ? "handoff" : END;
}

/** The ops_copilot graph; langgraph.json lists it (no checkpointer: the host attaches one). */
export const graph = new StateGraph(CopilotState)
  .addNode("supervisor", supervisor)
  .addNode("handoff", handoffNode)
  .addNode("deploy_specialist", deploySpecialist)
  .addNode("comms_specialist", commsSpecialist)
  .addEdge(START, "supervisor")
  .addConditionalEdges("supervisor", afterSupervisor, ["handoff", END])
  .addConditionalEdges("handoff", (state) => state.active ?? "supervisor", ["supervisor", ...SPECIALISTS])
  // A specialist that stopped with an error ends the run with that error instead of the supervisor overwriting it.
  .addConditionalEdges("deploy_specialist", (state) => (state.error == null ? "supervisor" : END), ["supervisor", END])
  .addConditionalEdges("comms_specialist", (state) => (state.error == null ? "supervisor" : END), ["supervisor", END])
  .compile({ name: "ops_copilot" });
