/**
 * The real model path: `ChatOpenAI` over the Chat Completions API, pointed at
 * OpenAI or any OpenAI-compatible server.
 * @module
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ChatOpenAI } from "@langchain/openai";
import { attemptFetch } from "./model-attempts.js";
import { DEFAULT_MODEL_TIMEOUT_MS } from "./model-timeout.js";

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
  /** Per-attempt timeout in ms (each retry gets its own). @default DEFAULT_MODEL_TIMEOUT_MS */
  timeoutMs?: number;
}

/**
 * Builds a `ChatOpenAI` that reports token usage (also when streaming) and each HTTP attempt (see
 * `AttemptLog`) so traces and budgets see them.
 * @example
 * const model = createOpenAIModel({ apiKey: "sk-…", baseURL: "http://localhost:8000/v1" });
 */
export function createOpenAIModel(options: OpenAIModelOptions): BaseChatModel {
  const timeout = options.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  return new ChatOpenAI({
    apiKey: options.apiKey,
    model: options.model ?? DEFAULT_OPENAI_MODEL,
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    maxRetries: options.maxRetries ?? 2,
    timeout,
    streamUsage: true,
    configuration: { fetch: attemptFetch(timeout), ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }) },
  });
}
