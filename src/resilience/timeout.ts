/**
 * Per-call timeout: the call gets its own signal, aborted when the time is up
 * or when the parent (the run's cancel) aborts.
 * @module
 */
import { ToolError } from "../errors.js";
import { abortReason, rejectStopped } from "./abort.js";
import { type Clock, systemClock } from "./clock.js";

/** Extra knobs of {@link withTimeout}. */
export interface WithTimeoutOptions {
  /** Time source. @default systemClock */
  clock?: Clock;
  /** Named in the TOOL_TIMEOUT error. @default "call" */
  label?: string;
}

/**
 * Runs `fn` with a signal that aborts after `ms` and rejects with a
 * `ToolError` TOOL_TIMEOUT at that moment, even when `fn` ignores its signal,
 * so a hung tool cannot hang the run. A parent abort propagates the same way
 * with the parent's reason.
 */
export function withTimeout<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  ms: number,
  parentSignal?: AbortSignal,
  options: WithTimeoutOptions = {},
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const label = options.label ?? "call";
  const controller = new AbortController();
  if (parentSignal?.aborted) return Promise.reject(abortReason(parentSignal));

  return new Promise<T>((resolve, reject) => {
    const finish = (): void => {
      cancelTimer();
      parentSignal?.removeEventListener("abort", onParentAbort);
    };
    let call: Promise<T> | undefined;
    const fail = (error: Error, canceled = false): void => {
      finish();
      controller.abort(error);
      // A cancel lets a call that honours its signal say it was never performed; a timeout's moment stays exact.
      if (canceled && call !== undefined) rejectStopped(call, error, reject);
      else reject(error);
    };
    const onParentAbort = (): void => fail(abortReason(parentSignal), true);
    const cancelTimer = clock.setTimer(() => {
      fail(new ToolError("TOOL_TIMEOUT", `${label} timed out after ${ms} ms`, { details: { timeoutMs: ms } }));
    }, ms);
    parentSignal?.addEventListener("abort", onParentAbort, { once: true });

    try {
      call = Promise.resolve(fn(controller.signal));
    } catch (error) {
      call = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    call.then(
      (value) => {
        if (controller.signal.aborted) return;
        finish();
        resolve(value);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        finish();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
