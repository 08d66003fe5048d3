/**
 * Picks the model a graph runs on: a real OpenAI-compatible model when
 * `OPENAI_API_KEY` is set, otherwise the deterministic scripted model the
 * caller supplies, so the same graph runs offline and online.
 * @module
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { DEFAULT_MODEL_TIMEOUT_MS, MODEL_TIMEOUT_ENV, parseModelTimeout } from "./model-timeout.js";
import { createOpenAIModel, DEFAULT_OPENAI_MODEL } from "./openai-model.js";

/** Which model the environment selects; see {@link resolveModelChoice}. */
export type ModelChoice =
  | { kind: "openai"; apiKey: string; baseURL: string | undefined; model: string; timeoutMs: number }
  | { kind: "scripted" };

/** Options of {@link modelFromEnv}. */
export interface ModelFromEnvOptions {
  /** The offline model, used when no API key is configured. */
  scripted: BaseChatModel;
  /** Environment to read. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Per-attempt timeout of the real model, over `AGENTRT_MODEL_TIMEOUT_MS`. @default DEFAULT_MODEL_TIMEOUT_MS */
  timeoutMs?: number;
}

/**
 * Reads `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `AGENTRT_MODEL` and `AGENTRT_MODEL_TIMEOUT_MS`; blank values count
 * as unset. A timeout that is not a whole number of ms > 0 is BAD_INPUT.
 */
export function resolveModelChoice(env: NodeJS.ProcessEnv = process.env): ModelChoice {
  const apiKey = nonBlank(env.OPENAI_API_KEY);
  if (apiKey === undefined) return { kind: "scripted" };
  return {
    kind: "openai",
    apiKey,
    baseURL: nonBlank(env.OPENAI_BASE_URL),
    model: nonBlank(env.AGENTRT_MODEL) ?? DEFAULT_OPENAI_MODEL,
    timeoutMs: parseModelTimeout(nonBlank(env[MODEL_TIMEOUT_ENV])) ?? DEFAULT_MODEL_TIMEOUT_MS,
  };
}

/**
 * The model for this process: `ChatOpenAI` when `OPENAI_API_KEY` is set,
 * else `scripted`.
 * @example
 * const model = modelFromEnv({ scripted: new ScriptedChatModel({ script }) });
 */
export function modelFromEnv(options: ModelFromEnvOptions): BaseChatModel {
  const choice = resolveModelChoice(options.env ?? process.env);
  if (choice.kind === "scripted") return options.scripted;
  return createOpenAIModel({ apiKey: choice.apiKey, baseURL: choice.baseURL, model: choice.model, timeoutMs: options.timeoutMs ?? choice.timeoutMs });
}

function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
