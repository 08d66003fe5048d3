/**
 * The real model's per-attempt timeout as a person sets it (`AGENTRT_MODEL_TIMEOUT_MS`, `--model-timeout-ms`).
 * Kept apart from the OpenAI client so the CLI can check the flag without loading it.
 * @module
 */
import { UserInputError } from "../errors.js";

/**
 * How long one HTTP attempt may wait for the model's answer before the client gives up on it and retries;
 * `AGENTRT_MODEL_TIMEOUT_MS` or `timeoutMs` change it. A run's deadline cuts a call sooner.
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

/** The variable that sets the real model's per-attempt timeout in ms. */
export const MODEL_TIMEOUT_ENV = "AGENTRT_MODEL_TIMEOUT_MS";

/** A model timeout as a person gave it: a whole number of ms > 0, else BAD_INPUT naming `source`; undefined stays undefined. */
export function parseModelTimeout(text: string | undefined, source: string = MODEL_TIMEOUT_ENV): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new UserInputError("BAD_INPUT", `${source} must be a whole number of milliseconds > 0 (got ${JSON.stringify(text)})`);
  return ms;
}
