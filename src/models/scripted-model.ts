/**
 * A deterministic chat model for tests, demos and offline runs: a script
 * decides each reply from the conversation so far, and tool call ids are a
 * hash of that conversation, so a replay in another process yields the same
 * ids (and therefore the same idempotency keys).
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, AIMessageChunk, type BaseMessage, type InvalidToolCall, type ToolCall, type ToolCallChunk } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { jsonLength } from "./json-length.js";

/** One tool call a script asks for. `args` may be a raw string to simulate malformed JSON. */
export interface ScriptedToolCall {
  name: string;
  /** An object, or a JSON string (parsed; if it does not parse the call becomes an invalid tool call). */
  args?: Record<string, unknown> | string;
  /** Fixed id; by default a hash of the conversation and the call's position. */
  id?: string;
}

/** What a script returns for one turn. */
export interface ScriptedReply {
  /** The assistant's text. @default "" */
  content?: string;
  /** Tool calls to emit, several at once for a parallel turn. @default [] */
  toolCalls?: ScriptedToolCall[];
}

/** What a script sees. */
export interface ScriptInput {
  /** The conversation so far, as the model receives it. */
  messages: BaseMessage[];
  /** Names of the tools bound with `bindTools`. */
  tools: string[];
  /** 1 for the first model call of a conversation: one more than the AI messages already present. */
  turn: number;
}

/** Decides the next reply; must be a pure function of its input for replays to match. */
export type ChatScript = (input: ScriptInput) => ScriptedReply | Promise<ScriptedReply>;

/** One recorded call of a scripted model (shared by every bound copy). */
export interface ScriptedCallRecord {
  turn: number;
  tools: string[];
  messageCount: number;
  reply: AIMessage;
}

/** Options of {@link ScriptedChatModel}. */
export interface ScriptedChatModelOptions extends BaseChatModelParams {
  script: ChatScript;
  /** Reported as `model_name`. @default "scripted" */
  modelName?: string;
  /** Simulated latency per call, for benchmarks. @default 0 */
  latencyMs?: number;
}

interface Shared {
  calls: ScriptedCallRecord[];
}

/** Rough and deterministic: about four characters per token. */
export function estimateTokens(text: string): number {
  return tokensOfLength(text.length);
}

/** {@link estimateTokens} of a text known by its length alone. */
const tokensOfLength = (length: number): number => Math.ceil(length / 4);

const contentText = (message: BaseMessage): string =>
  typeof message.content === "string" ? message.content : JSON.stringify(message.content);

/** A message's tool calls as the transcript writes them ([id, name, args] each), or undefined for none. */
function callTuples(message: BaseMessage): unknown[] | undefined {
  return "tool_calls" in message && Array.isArray(message.tool_calls) && message.tool_calls.length > 0
    ? message.tool_calls.map((c: ToolCall) => [c.id, c.name, c.args])
    : undefined;
}

function callsText(message: BaseMessage): string {
  const calls = callTuples(message);
  return calls === undefined ? "" : JSON.stringify(calls);
}

/** A message's line in the transcript (the lines joined by "\n" are what call ids and input tokens derive from). */
function messageText(message: BaseMessage): string {
  return `${message.getType()}:${contentText(message)}${callsText(message)}`;
}

/**
 * The transcript's length, counted without building it (nor stringifying the tool calls: {@link jsonLength}): a reply
 * without calls needs only this (its input tokens), and on a long thread the joined transcript (4,000 messages:
 * ~430,000 characters) and then stringifying each message's calls were most of a call's time.
 */
function transcriptLength(messages: readonly BaseMessage[]): number {
  let length = Math.max(0, messages.length - 1);
  for (const message of messages) {
    const { content } = message;
    length += message.getType().length + 1 + (typeof content === "string" ? content.length : jsonLength(content));
    const calls = callTuples(message);
    if (calls !== undefined) length += jsonLength(calls);
  }
  return length;
}

function toolName(tool: BindToolsInput): string {
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof t.function?.name === "string") return t.function.name;
  if (typeof t.name === "string") return t.name;
  return "unknown";
}

/**
 * A `BaseChatModel` driven by a script.
 * @example
 * const model = new ScriptedChatModel({
 *   script: ({ turn }) => turn === 1
 *     ? { toolCalls: [{ name: "get_weather", args: { city: "Beijing" } }] }
 *     : { content: "Sunny." },
 * });
 */
export class ScriptedChatModel extends BaseChatModel {
  /** The name reported in response metadata and traces. */
  readonly modelName: string;
  /** Names of the tools bound to this instance. */
  readonly boundToolNames: readonly string[];
  readonly #script: ChatScript;
  readonly #latencyMs: number;
  readonly #shared: Shared;
  readonly #options: ScriptedChatModelOptions;

  constructor(options: ScriptedChatModelOptions, bound: { tools: string[]; shared: Shared } | undefined = undefined) {
    super(options);
    this.#script = options.script;
    this.modelName = options.modelName ?? "scripted";
    this.#latencyMs = options.latencyMs ?? 0;
    this.boundToolNames = bound?.tools ?? [];
    this.#shared = bound?.shared ?? { calls: [] };
    this.#options = options;
  }

  /** Every call made so far through this model or any copy from `bindTools`. */
  get calls(): readonly ScriptedCallRecord[] {
    return this.#shared.calls;
  }

  _llmType(): string {
    return "scripted";
  }

  /** Returns a copy with these tools bound; the call log stays shared. */
  override bindTools(tools: BindToolsInput[]): ScriptedChatModel {
    return new ScriptedChatModel(this.#options, {
      tools: [...this.boundToolNames, ...tools.map(toolName)],
      shared: this.#shared,
    });
  }

  async _generate(messages: BaseMessage[], _options: BaseChatModelCallOptions): Promise<ChatResult> {
    const message = await this.#reply(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  /**
   * The same reply, word by word, as a streaming model sends it (LangGraph's "messages" stream mode asks for
   * this): the text first, then one chunk with the tool calls, usage and finish reason.
   */
  override async *_streamResponseChunks(
    messages: BaseMessage[], _options: BaseChatModelCallOptions, runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = await this.#reply(messages);
    const text = typeof message.content === "string" ? message.content : "";
    // Leading spaces ride with the next word, trailing ones with the last: the pieces add up to the text.
    for (const piece of text.match(/\s*\S+(?:\s+$)?/g) ?? (text === "" ? [] : [text])) {
      const chunk = new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
    const last = new ChatGenerationChunk({
      text: "",
      message: new AIMessageChunk({
        content: "",
        tool_call_chunks: toolCallChunks(message),
        usage_metadata: message.usage_metadata,
        response_metadata: message.response_metadata,
      }),
    });
    yield last;
    await runManager?.handleLLMNewToken("", undefined, undefined, undefined, undefined, { chunk: last });
  }

  async #reply(messages: BaseMessage[]): Promise<AIMessage> {
    if (this.#latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#latencyMs));
    const tools = [...this.boundToolNames];
    let turn = 1;
    for (const m of messages) if (m.getType() === "ai") turn++;
    const reply = await this.#script({ messages, tools, turn });
    const message = this.#buildMessage(reply, messages);
    this.#shared.calls.push({ turn, tools, messageCount: messages.length, reply: message });
    return message;
  }

  #buildMessage(reply: ScriptedReply, messages: readonly BaseMessage[]): AIMessage {
    const toolCalls: ToolCall[] = [];
    const invalid: InvalidToolCall[] = [];
    // The transcript is built and hashed once, and only when a call's id derives from it.
    let transcript: Hash | undefined;
    let length: number | undefined;
    (reply.toolCalls ?? []).forEach((call, index) => {
      if (call.id === undefined && transcript === undefined) {
        const text = messages.map(messageText).join("\n");
        length = text.length;
        transcript = createHash("sha256").update(text);
      }
      const id = call.id ?? `call_${transcript!.copy().update(`\n#${index}:${call.name}`).digest("hex").slice(0, 24)}`;
      const parsed = parseArgs(call.args);
      if (parsed.ok) toolCalls.push({ id, name: call.name, args: parsed.value, type: "tool_call" });
      else invalid.push({ id, name: call.name, args: parsed.raw, error: parsed.error, type: "invalid_tool_call" });
    });
    const content = reply.content ?? "";
    const inputTokens = tokensOfLength(length ?? transcriptLength(messages));
    const outputTokens = estimateTokens(content + (reply.toolCalls?.length ? JSON.stringify(reply.toolCalls) : ""));
    const totalTokens = inputTokens + outputTokens;
    return new AIMessage({
      content,
      tool_calls: toolCalls,
      invalid_tool_calls: invalid,
      usage_metadata: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: totalTokens },
      response_metadata: {
        model_name: this.modelName,
        finish_reason: toolCalls.length + invalid.length > 0 ? "tool_calls" : "stop",
        tokenUsage: { promptTokens: inputTokens, completionTokens: outputTokens, totalTokens },
      },
    });
  }
}

/** The message's tool calls (the valid ones, then the invalid ones) as the chunks a streaming model sends. */
function toolCallChunks(message: AIMessage): ToolCallChunk[] {
  const valid = (message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: JSON.stringify(call.args) }));
  const invalid = (message.invalid_tool_calls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args }));
  return [...valid, ...invalid].map((call, index) => ({ ...call, index, type: "tool_call_chunk" }));
}

function parseArgs(args: ScriptedToolCall["args"]):
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; raw: string; error: string } {
  if (args === undefined) return { ok: true, value: {} };
  if (typeof args !== "string") return { ok: true, value: args };
  try {
    const value = JSON.parse(args) as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
    return { ok: false, raw: args, error: "arguments are not a JSON object" };
  } catch (error) {
    return { ok: false, raw: args, error: error instanceof Error ? error.message : String(error) };
  }
}
