/**
 * The real model path: `ChatOpenAI` over the Chat Completions API, pointed at
 * OpenAI or any OpenAI-compatible server.
 * @module
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";

/** The model used when neither the caller nor `AGENTRT_MODEL` names one. */
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";

/** Options of {@link createOpenAIModel}. */
export interface OpenAIModelOptions {
  /** API key sent as the bearer token. */
  apiKey: string;
  /** Base URL of an OpenAI-compatible server, e.g. `http://localhost:8000/v1`. @default OpenAI's own */
  baseURL?: string;
  /** Model name. @default DEFAULT_OPENAI_MODEL */
  model?: string;
  /** Sampling temperature; left unset so reasoning models that refuse it still work. @default undefined */
  temperature?: number;
  /** HTTP-level retries inside the client; agentrt's own retry policy sits above. @default 2 */
  maxRetries?: number;
  /** Per-request timeout. @default 60000 */
  timeoutMs?: number;
}

/**
 * Builds a `ChatOpenAI` that reports token usage (also when streaming) so
 * traces and budgets see it.
 * @example
 * const model = createOpenAIModel({ apiKey: "sk-…", baseURL: "http://localhost:8000/v1" });
 */
export function createOpenAIModel(options: OpenAIModelOptions): BaseChatModel {
  return new ChatOpenAI({
    apiKey: options.apiKey,
    model: options.model ?? DEFAULT_OPENAI_MODEL,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? 60_000,
    streamUsage: true,
    configuration: options.baseURL === undefined ? {} : { baseURL: options.baseURL },
  });
}
