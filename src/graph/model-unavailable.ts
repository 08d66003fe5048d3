/**
 * Tells a model service that is down or overloaded apart from a bug: connection failures, timeouts,
 * 429 and 5xx answers (after the client's own retries) become MODEL_UNAVAILABLE, so a run's error
 * code says "dependency down" instead of INTERNAL.
 * @module
 */
import { ModelUnavailableError } from "../errors.js";
import type { ModelAttempt } from "../models/model-attempts.js";

const NETWORK_CODES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EAI_AGAIN", "ENOTFOUND", "EPIPE", "UND_ERR_CONNECT_TIMEOUT"]);

/**
 * The error as MODEL_UNAVAILABLE when it says the model's service is unreachable or overloaded; undefined otherwise.
 * `attempts`: the HTTP attempts the call made, when they were watched (named in the message when more than one).
 */
export function asModelUnavailable(error: unknown, model: string, attempts: readonly ModelAttempt[] = []): ModelUnavailableError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, code, cause } = error as { status?: unknown; code?: unknown; cause?: unknown };
  // The OpenAI SDK's APIConnectionError / APIConnectionTimeoutError keep the name "Error": the class tells.
  const names = [(error as { name?: unknown }).name, error.constructor.name].filter((n): n is string => typeof n === "string");
  const unreachable = names.some((n) => /Connection|Timeout/.test(n)) || (typeof code === "string" && NETWORK_CODES.has(code))
    || (typeof (cause as { code?: unknown } | null)?.code === "string" && NETWORK_CODES.has((cause as { code: string }).code));
  const overloaded = typeof status === "number" && (status === 429 || status >= 500);
  if (!unreachable && !overloaded) return undefined;
  const line = error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : JSON.stringify(error);
  // The OpenAI SDK starts its message with the status, which `why` already says.
  const message = overloaded ? line.replace(new RegExp(`^${String(status)}\\s+`), "") : line;
  const why = overloaded ? `answered ${String(status)}` : "could not be reached";
  // A timeout's "Request timed out." gains how long it waited; an error status would only be said twice.
  const last = overloaded ? undefined : attempts.at(-1)?.error;
  const tries = attempts.length > 1 ? ` (${attempts.length} attempts${last === undefined ? "" : `, the last: ${last}`})` : "";
  return new ModelUnavailableError("MODEL_UNAVAILABLE", `model ${model} ${why}: ${message}${tries}`, {
    cause: error, details: { model, attempts: attempts.length, ...(overloaded ? { status } : {}) },
  });
}
