/**
 * The model turn: build the context from state, call the model with the
 * tools bound, normalise its tool calls and record usage.
 * @module
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, isAIMessage, isToolMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { defaultPolicy, evaluatePolicy, type Policy } from "../policy/policy.js";
import { ToolIndex } from "../tools/discovery.js";
import type { AgentTool } from "../tools/define-tool.js";
import type { ToolRegistry } from "../tools/registry.js";
import { fitContext, type ContextOptions } from "./context-budget.js";
import { emit, type AgentHooks } from "./hooks.js";
import { resolveRunScope } from "./run-config.js";
import type { AgentStateUpdate } from "./state.js";
import { callModel } from "./model-call.js";
import { agentOf } from "./agent-of.js";
import { OWN_MODEL_CALL_TAG } from "./foreign-call-hooks.js";

/** Options of {@link createModelTurnNode}. */
export interface ModelTurnOptions {
  model: BaseChatModel;
  registry: ToolRegistry;
  /** System instructions, kept separate from every tool result. @default none */
  instructions?: string;
  /** Model turns allowed per run (since the last human message) before the agent stops with MAX_STEPS_EXCEEDED. @default 10 */
  maxTurns?: number;
  /** @default {} */
  hooks?: AgentHooks;
  /** Offer the model only the tools relevant to the request (for large tool sets). @default all tools */
  toolSelection?: ToolSelection;
  /** Token budget of each model call; cuts are reported through `onContextTrim`. @default no budget */
  context?: ContextOptions;
  /** With `toolSelection`, tools this policy denies to the run's user are never offered. @default defaultPolicy */
  policy?: Policy;
}

/** How many and which tools a turn offers; see {@link ToolIndex}. */
export interface ToolSelection {
  /** Most tools found by search. */
  max: number;
  /** Always offered. @default [] */
  pinned?: string[];
}

/** Token counts of one model response, from `usage_metadata` or provider metadata. */
export function readUsage(message: AIMessage): { inputTokens: number; outputTokens: number } {
  if (message.usage_metadata) {
    return { inputTokens: message.usage_metadata.input_tokens, outputTokens: message.usage_metadata.output_tokens };
  }
  const meta = message.response_metadata as { tokenUsage?: { promptTokens?: number; completionTokens?: number } } | undefined;
  return { inputTokens: meta?.tokenUsage?.promptTokens ?? 0, outputTokens: meta?.tokenUsage?.completionTokens ?? 0 };
}

/**
 * An AI message as providers must see it again: calls whose arguments did not
 * parse are listed with empty arguments, because every answered tool call id
 * must appear in the preceding assistant message (OpenAI rejects the request
 * otherwise, and its converter drops `invalid_tool_calls`).
 */
function resendable(message: BaseMessage): BaseMessage {
  if (!isAIMessage(message) || !message.invalid_tool_calls?.length) return message;
  return new AIMessage({
    content: message.content,
    id: message.id,
    tool_calls: [
      ...(message.tool_calls ?? []),
      ...message.invalid_tool_calls.map((c) => ({ id: c.id, name: c.name ?? "unknown", args: {}, type: "tool_call" as const })),
    ],
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
  });
}

/** What the model is told of a call new input superseded before it ran (its approval was never given). */
const NOT_PERFORMED = "not performed: the user sent a new message instead of answering its approval";

/** Whether every call of the AI message at `at` is answered by the tool results right after it (the usual case). */
function answeredRightAfter(thread: readonly BaseMessage[], at: number, calls: readonly { id?: string }[]): boolean {
  for (const call of calls) {
    let found = false;
    for (let i = at + 1; i < thread.length && !found; i++) {
      const next = thread[i]!;
      if (!isToolMessage(next)) break;
      found = next.tool_call_id === call.id;
    }
    if (!found) return false;
  }
  return true;
}

/**
 * The thread with a result for every call that later input superseded (the waiting run was canceled, its call
 * never ran): providers refuse an assistant message whose calls have no results (OpenAI), and the model must
 * not think it ran. The stored messages are left as they are. A call counts as answered by a result anywhere in
 * the thread; the set of every answered id is only made once some call's results are not right after it, so a
 * long thread whose calls all were answered costs one pass and no copy (it is returned as it is).
 */
function answerSuperseded(thread: BaseMessage[]): BaseMessage[] {
  let answered: Set<string> | undefined;
  let out: BaseMessage[] | undefined;
  for (let i = 0; i < thread.length; i++) {
    const message = thread[i]!;
    out?.push(message);
    const calls = isAIMessage(message) ? message.tool_calls : undefined;
    if (calls === undefined || calls.length === 0 || answeredRightAfter(thread, i, calls)) continue;
    answered ??= new Set(thread.flatMap((m) => (isToolMessage(m) ? [m.tool_call_id] : [])));
    const missing = calls.filter((c) => c.id !== undefined && !answered!.has(c.id));
    if (missing.length === 0) continue;
    out ??= thread.slice(0, i + 1);
    // Its results, if any, come first; calls of the last turn still running are not superseded.
    while (i + 1 < thread.length && isToolMessage(thread[i + 1])) out.push(thread[++i]!);
    if (i + 1 >= thread.length) continue;
    for (const call of missing) out.push(new ToolMessage({ tool_call_id: call.id!, name: call.name, content: NOT_PERFORMED, status: "error" }));
  }
  return out ?? thread;
}

/**
 * The messages sent to the model: instructions first, then the thread. Tool results stay ToolMessages; a call
 * superseded by later input gets a result saying it was not performed.
 */
export function buildContext(messages: readonly BaseMessage[], instructions: string | undefined): BaseMessage[] {
  const thread: BaseMessage[] = instructions ? [new SystemMessage(instructions)] : [];
  for (const m of messages) if (m.getType() !== "system") thread.push(resendable(m));
  // The instructions go in first, one copy fewer: a system message before the thread changes nothing answerSuperseded finds.
  return answerSuperseded(thread);
}

/**
 * Gives every tool call a unique id (deterministic from turn and position) so
 * each result answers exactly one call and each approval has its own action id.
 */
function withCallIds(message: AIMessage, turn: number): AIMessage {
  const seen = new Set<string>();
  let changed = false;
  const fix = (id: string | undefined, fallback: string): string => {
    const unique = id && !seen.has(id) ? id : fallback;
    changed ||= unique !== id;
    seen.add(unique);
    return unique;
  };
  const toolCalls = (message.tool_calls ?? []).map((c, i) => ({ ...c, id: fix(c.id, `call_t${turn}_${i}`) }));
  const invalid = (message.invalid_tool_calls ?? []).map((c, i) => ({ ...c, id: fix(c.id, `call_t${turn}_x${i}`) }));
  if (!changed) return message;
  return new AIMessage({
    content: message.content,
    id: message.id,
    tool_calls: toolCalls,
    invalid_tool_calls: invalid,
    usage_metadata: message.usage_metadata,
    response_metadata: message.response_metadata,
  });
}

function modelName(model: BaseChatModel): string {
  const m = model as unknown as { modelName?: unknown; model?: unknown };
  if (typeof m.modelName === "string") return m.modelName;
  return typeof m.model === "string" ? m.model : model._llmType();
}

function finalText(message: AIMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : "")).join("");
}

/** Binds all tools, or per turn only those relevant to the request plus those already used in this run. */
function toolBinder(options: ModelTurnOptions): (messages: readonly BaseMessage[], config?: LangGraphRunnableConfig) => Runnable<BaseMessage[], BaseMessage> {
  const bindAll = options.model.bindTools?.(options.registry.definitions()) ?? options.model;
  const selection = options.toolSelection;
  if (!selection || !options.model.bindTools) return () => bindAll;
  const index = ToolIndex.create(options.registry.list());
  const policy = options.policy ?? defaultPolicy;
  return (messages, config) => {
    const { user, roles } = resolveRunScope(config);
    const visible = (tool: AgentTool) => evaluatePolicy(policy, { tool, user, roles }).effect !== "deny";
    const lastHuman = messages.findLastIndex((m) => m.getType() === "human");
    const query = lastHuman >= 0 ? String(messages[lastHuman]?.text ?? "") : "";
    const used = messages.slice(lastHuman + 1).flatMap((m) => (isAIMessage(m) ? (m.tool_calls ?? []).map((c) => c.name) : []));
    const again = used.filter((n) => { const t = options.registry.get(n); return t !== undefined && visible(t); });
    const names = [...new Set([...index.select(query, { ...selection, visible }).map((t) => t.name), ...again])];
    return options.model.bindTools!(options.registry.definitions(names));
  };
}

/** Model turns since the last human message, i.e. within the current run of a thread. */
function turnsSinceInput(messages: readonly BaseMessage[]): number {
  let count = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const type = messages[i]?.getType();
    if (type === "human") break;
    if (type === "ai") count++;
  }
  return count;
}

/** The model-turn node for any state with `messages` and `turns`. */
export function createModelTurnNode(options: ModelTurnOptions) {
  const maxTurns = options.maxTurns ?? 10;
  const hooks = options.hooks ?? {};
  const name = modelName(options.model);
  const bindTools = toolBinder(options);
  return async (state: { messages: BaseMessage[]; turns: number; result?: string | null; error?: unknown }, config?: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    if (turnsSinceInput(state.messages) >= maxTurns) {
      return { error: { code: "MAX_STEPS_EXCEEDED", message: `stopped after ${maxTurns} model turns without a final answer` } };
    }
    const turn = state.turns + 1;
    const startedAt = Date.now();
    let context = buildContext(state.messages, options.instructions);
    if (options.context) {
      const fitted = await fitContext(context, options.context, resolveRunScope(config).runId);
      context = fitted.messages;
      const { trim } = fitted;
      if (trim.droppedMessages > 0 || trim.truncatedResults > 0) emit([hooks, resolveRunScope(config).hooks], "onContextTrim", { turn, ...trim });
    }
    // Budgets are checked against the context exactly as it would be sent; a stop means no call.
    const stop = await resolveRunScope(config).guard?.beforeModelCall?.({ model: name, turn, messages: context });
    if (stop !== undefined) return { error: stop };
    const agent = agentOf(config);
    const observers = [hooks, resolveRunScope(config).hooks];
    const called = await callModel(
      // Tagged: this turn reports itself (onModelCall below), so a foreign-call callback on the run skips it.
      (signal) => bindTools(state.messages, config).invoke(context, { ...config, signal, tags: [...(config?.tags ?? []), OWN_MODEL_CALL_TAG] }),
      {
        model: name, signal: config?.signal, guard: resolveRunScope(config).guard,
        onFailedAttempt: (a) => emit(observers, "onModelAttemptFailed", { model: name, turn, ...(agent === undefined ? {} : { agent }), ...a, error: a.error ?? "failed" }),
      },
    );
    if ("stop" in called) return { error: called.stop };
    const endedAt = Date.now();
    const raw = called.reply;
    const reply = withCallIds(isAIMessage(raw) ? raw : new AIMessage({ content: raw.content }), turn);
    const usage = readUsage(reply);
    const attempt = called.attempt > 1 ? { attempt: called.attempt } : {};
    // The answering attempt's own start when it was watched: its failed attempts have spans of their own.
    emit(observers, "onModelCall", { model: name, turn, ...usage, startedAt: called.startedAt ?? startedAt, endedAt, ...(agent === undefined ? {} : { agent }), ...attempt });
    const calls = (reply.tool_calls?.length ?? 0) + (reply.invalid_tool_calls?.length ?? 0);
    const result = calls === 0 ? finalText(reply) : null;
    // Only channels whose value changes are written (the state after the step is the same): each written channel
    // costs LangGraph a new version and the checkpoint a stored value.
    return {
      messages: [reply],
      turns: turn,
      usage: { ...usage, modelCalls: 1 },
      ...(state.result === result ? {} : { result }),
      ...(state.error === null ? {} : { error: null }),
    };
  };
}
