/**
 * Calling an agentrt tool from a node of a declared DAG (defineDag), not from
 * a model turn: the same executor an agent uses (the tool's retries, timeout,
 * breaker, and the ledger for side effects), and the same `onToolCall` hook,
 * so the runtime traces it as a tool_call span of the run. Public API only.
 * @module
 */
import { getConfig } from "@langchain/langgraph";
import { type AgentTool } from "agentrt";
import { createResilientExecutor, idempotencyKey, type ToolOutcome } from "agentrt/tools";
import { resolveRunScope } from "agentrt/graph";

/**
 * Runs `tool` with `args` for DAG node `node` of the current run and reports it to the run's hooks.
 * The call id is the node's name: stable across resumes, so a side effect keeps its idempotency key.
 */
export async function callToolFromNode(node: string, tool: AgentTool, args: unknown): Promise<ToolOutcome> {
  const scope = resolveRunScope(getConfig());
  const callScope = { ...scope, toolCallId: node };
  // Retries show as the run's RETRYING, as an agent's do.
  const executor = createResilientExecutor({ onRetry: (e) => scope.hooks.onToolRetry?.({ ...e, error: e.error }) });
  const startedAt = Date.now();
  const outcome = await executor(tool, tool.schema.parse(args), callScope);
  const result = outcome.ok ? JSON.stringify(outcome.result) ?? "" : "";
  // Turn 0: no model turn asked for this call, so the trace hangs it directly under the run.
  scope.hooks.onToolCall?.({
    tool: tool.name, toolCallId: node, args, startedAt, endedAt: Date.now(), status: outcome.ok ? "done" : "failed",
    error: outcome.ok ? undefined : { code: outcome.error.code, message: outcome.error.message },
    externalOperationId: outcome.externalOperationId, attempts: outcome.attempts, turn: 0,
    idempotencyKey: idempotencyKey(scope.runId, node, scope.actionVersion), resultSize: result.length, redact: tool.redact,
  });
  return outcome;
}
