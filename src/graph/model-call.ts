/**
 * One model call of a model turn: cut at the run's deadline, and watched per HTTP attempt (see
 * `AttemptLog`) so a call the client retried shows, and counts, each attempt.
 * @module
 */
import type { BaseMessage } from "@langchain/core/messages";
import { AttemptLog, type ModelAttempt } from "../models/model-attempts.js";
import { asModelUnavailable } from "./model-unavailable.js";
import type { RunGuard } from "./run-guard.js";
import type { AgentStopError } from "./state.js";

/** What {@link callModel} needs besides the call itself. */
export interface ModelCallScope {
  /** The model's name, for the error. */
  model: string;
  /** The run's own signal (cancel, lost lease). */
  signal?: AbortSignal;
  guard?: RunGuard;
  /** Each attempt that failed, in order, once the call has ended. */
  onFailedAttempt(attempt: ModelAttempt): void;
}

/** The answer, which attempt gave it (1 unless the client retried) and when that attempt started (if watched), or the deadline's stop. */
export type ModelCallOutcome = { reply: BaseMessage; attempt: number; startedAt: number | undefined } | { stop: AgentStopError };

/**
 * Calls `invoke` with the signal to pass to the model: the run's, cut at the run's deadline when it has one.
 * A call cut at the deadline returns the guard's stop; a failure of the model's service throws
 * MODEL_UNAVAILABLE; a stopped run rethrows its abort.
 */
export async function callModel(invoke: (signal: AbortSignal | undefined) => Promise<BaseMessage>, scope: ModelCallScope): Promise<ModelCallOutcome> {
  const deadline = scope.guard?.deadline?.();
  const cut = deadline === undefined ? undefined : AbortSignal.timeout(Math.max(0, deadline.at - Date.now()));
  const signal = cut === undefined ? scope.signal : scope.signal === undefined ? cut : AbortSignal.any([scope.signal, cut]);
  const log = new AttemptLog(signal);
  try {
    const reply = await log.run(() => invoke(signal));
    const attempts = report(log.close("no answer"), scope);
    const answered = attempts.at(-1);
    return { reply, attempt: answered?.attempt ?? 1, startedAt: answered?.startedAt };
  } catch (error) {
    const stopped = scope.signal?.aborted === true;
    const atDeadline = !stopped && cut?.aborted === true;
    const attempts = report(log.close(atDeadline ? "cut at the run's deadline" : stopped ? "the run stopped" : "no answer"), scope);
    if (atDeadline) return { stop: deadline!.stop() };
    // An abort is the run stopping, not the service failing.
    throw (stopped ? undefined : asModelUnavailable(error, scope.model, attempts)) ?? error;
  }
}

function report(attempts: ModelAttempt[], scope: ModelCallScope): ModelAttempt[] {
  for (const attempt of attempts) if (attempt.error !== undefined) scope.onFailedAttempt(attempt);
  return attempts;
}
