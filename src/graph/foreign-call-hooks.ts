/**
 * Model and tool calls of a foreign agent (LangChain `createAgent`, LangGraph `createReactAgent`) as agentrt hook
 * events: a LangChain callback handler on the run's config sees every chat model and tool the graph invokes and
 * reports each, when it ends, to the same `onModelCall` / `onToolCall` hooks agentrt's own nodes report to — so the
 * trace, usage and budget counters and the runtime's events treat them alike. agentrt's own model turns are tagged
 * {@link OWN_MODEL_CALL_TAG} and skipped (they report themselves); agentrt's tools never run as LangChain tools.
 * @module
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import { isAIMessage, type BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import { isGraphInterrupt } from "@langchain/langgraph";
import type { AgentHooks } from "./hooks.js";
import { emit } from "./hooks.js";

/** The tag agentrt's model-turn node puts on its model calls: they are reported by the node, not by callbacks. */
export const OWN_MODEL_CALL_TAG = "agentrt:model_turn";

interface OpenModelCall { model: string; turn: number; startedAt: number }
interface OpenToolCall { tool: string; toolCallId: string; args: unknown; startedAt: number; turn: number }

function modelNameOf(llm: Serialized, metadata: Record<string, unknown> | undefined): string {
  if (typeof metadata?.ls_model_name === "string" && metadata.ls_model_name !== "") return metadata.ls_model_name;
  const id = (llm as { id?: unknown }).id;
  return Array.isArray(id) && typeof id.at(-1) === "string" ? String(id.at(-1)) : "unknown";
}

function usageOf(output: LLMResult): { inputTokens: number; outputTokens: number; model?: string } {
  const message = (output.generations[0]?.[0] as { message?: BaseMessage } | undefined)?.message;
  const usage = message !== undefined && isAIMessage(message) ? message.usage_metadata : undefined;
  const metadata: Record<string, unknown> = message?.response_metadata ?? {};
  const named = metadata.model_name;
  const model = typeof named === "string" && named !== "" ? { model: named } : {};
  if (usage !== undefined) return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, ...model };
  const tokens = (output.llmOutput as { tokenUsage?: { promptTokens?: number; completionTokens?: number } } | undefined)?.tokenUsage;
  return { inputTokens: tokens?.promptTokens ?? 0, outputTokens: tokens?.completionTokens ?? 0, ...model };
}

function parsedArgs(input: string): unknown {
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

function resultOf(output: unknown): { status: "done" | "failed"; size: number; error?: string } {
  const message = output as { content?: unknown; status?: unknown } | null;
  const content = message !== null && typeof message === "object" && "content" in message ? message.content : output;
  const text = typeof content === "string" ? content : JSON.stringify(content) ?? "";
  return message?.status === "error" ? { status: "failed", size: text.length, error: text.slice(0, 500) } : { status: "done", size: text.length };
}

/**
 * Reports a foreign graph's chat model and tool calls to `hooks`. A model call's turn is one more than the AI
 * messages it is sent (stable across resumes); a tool call belongs to the latest model turn, or to `startTurn`
 * (the AI messages already in the checkpoint) when this execution resumes straight into a tool. With `pinned`,
 * every call belongs to `startTurn`: calls made inside one agentrt tool, whose prompts say nothing of the run's turns.
 */
export class ForeignCallHooks extends BaseCallbackHandler {
  name = "agentrt_foreign_calls";
  // Awaited, not backgrounded: a span must be recorded before the run's outcome is written.
  override awaitHandlers = true;
  private readonly models = new Map<string, OpenModelCall>();
  private readonly tools = new Map<string, OpenToolCall>();
  private turn: number;

  constructor(private readonly hooks: AgentHooks, startTurn = 0, private readonly pinned = false) {
    super();
    this.turn = startTurn;
  }

  override handleChatModelStart(
    llm: Serialized, messages: BaseMessage[][], runId: string, _parent?: string, _extra?: Record<string, unknown>,
    tags?: string[], metadata?: Record<string, unknown>,
  ): void {
    if (tags?.includes(OWN_MODEL_CALL_TAG) === true) return;
    const turn = this.pinned ? this.turn : (messages[0] ?? []).filter((m) => m.getType() === "ai").length + 1;
    this.turn = turn;
    this.models.set(runId, { model: modelNameOf(llm, metadata), turn, startedAt: Date.now() });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const call = this.models.get(runId);
    if (call === undefined) return;
    this.models.delete(runId);
    const { model, ...usage } = usageOf(output);
    emit([this.hooks], "onModelCall", { model: model ?? call.model, turn: call.turn, ...usage, startedAt: call.startedAt, endedAt: Date.now() });
  }

  override handleLLMError(_error: Error, runId: string): void {
    const call = this.models.get(runId);
    if (call === undefined) return;
    this.models.delete(runId);
    emit([this.hooks], "onModelCall", { model: call.model, turn: call.turn, inputTokens: 0, outputTokens: 0, startedAt: call.startedAt, endedAt: Date.now() });
  }

  override handleToolStart(
    tool: Serialized, input: string, runId: string, _parent?: string, _tags?: string[], _metadata?: Record<string, unknown>,
    runName?: string, toolCallId?: string,
  ): void {
    const name = runName ?? (tool as { name?: string }).name ?? "tool";
    this.tools.set(runId, { tool: name, toolCallId: toolCallId ?? "", args: parsedArgs(input), startedAt: Date.now(), turn: this.turn });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    this.endTool(runId, resultOf(output));
  }

  override handleToolError(error: Error, runId: string): void {
    // A tool that paused for a person (interrupt()) did not fail: it runs again when resumed and is recorded then.
    if (isGraphInterrupt(error)) this.tools.delete(runId);
    else this.endTool(runId, { status: "failed", size: 0, error: error.message });
  }

  private endTool(runId: string, result: { status: "done" | "failed"; size: number; error?: string }): void {
    const call = this.tools.get(runId);
    if (call === undefined) return;
    this.tools.delete(runId);
    emit([this.hooks], "onToolCall", {
      tool: call.tool, toolCallId: call.toolCallId, args: call.args, startedAt: call.startedAt, endedAt: Date.now(),
      status: result.status, error: result.error === undefined ? undefined : { code: "TOOL_FAILED", message: result.error },
      externalOperationId: undefined, attempts: 1, turn: call.turn, idempotencyKey: "", resultSize: result.size, redact: [],
    });
  }
}
