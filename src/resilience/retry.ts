/**
 * Per-tool retry: exponential backoff with full jitter, retrying only the
 * failures the policy calls retryable (transient ones by default).
 * @module
 */
import { isTransientError } from "../errors.js";
import { throwIfAborted } from "./abort.js";
import { type Clock, sleep as clockSleep, systemClock } from "./clock.js";

/** Retry behaviour of one call: a tool's (`defineTool({ retry })`) or a declared DAG node's. */
export interface ToolRetryPolicy {
  /** Total attempts including the first. @default 1 */
  attempts?: number;
  /** Delay before the second attempt; doubles each time. @default 200 */
  initialDelayMs?: number;
  /** Upper bound of one backoff delay. @default 5000 */
  maxDelayMs?: number;
  /** Which failures are worth retrying. @default transient errors only */
  retryOn?: (error: unknown) => boolean;
}

/** What {@link WithRetryOptions.onRetry} learns before each backoff. */
export interface RetryEvent {
  /** The attempt that just failed (1-based). */
  attempt: number;
  /** How long the retry waits before attempt `attempt + 1`. */
  delayMs: number;
  /** Why the attempt failed. */
  error: unknown;
}

/** How {@link withRetry} waits and reports. */
export interface WithRetryOptions {
  /** Cancels the whole retry loop; a backoff in progress stops at once. */
  signal?: AbortSignal;
  /** Called before each backoff, e.g. to show the run as RETRYING; awaited. */
  onRetry?: (event: RetryEvent) => void | Promise<void>;
  /** Source of jitter in [0, 1). @default Math.random */
  random?: () => number;
  /** Time source for the default sleep. @default systemClock */
  clock?: Clock;
  /** How to wait; must reject when the signal aborts. @default sleep on `clock` */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** A retry policy with every default filled in. */
export type ResolvedRetryPolicy = Required<ToolRetryPolicy>;

/** Fills in the policy defaults: one attempt, 200 ms initial delay, 5 s cap, transient errors only. */
export function resolveRetryPolicy(policy: ToolRetryPolicy = {}): ResolvedRetryPolicy {
  return {
    attempts: Math.max(1, Math.floor(policy.attempts ?? 1)),
    initialDelayMs: Math.max(0, policy.initialDelayMs ?? 200),
    maxDelayMs: Math.max(0, policy.maxDelayMs ?? 5000),
    retryOn: policy.retryOn ?? isTransientError,
  };
}

/**
 * The backoff before attempt `failedAttempt + 1`: "full jitter", a uniform draw
 * in [0, min(cap, initial · 2^(failedAttempt-1))], so many runs hitting one
 * flaky system spread out instead of retrying in lockstep.
 */
export function backoffDelay(failedAttempt: number, policy: ResolvedRetryPolicy, random: () => number = Math.random): number {
  const exponential = policy.initialDelayMs * 2 ** Math.max(0, failedAttempt - 1);
  const ceiling = Math.min(policy.maxDelayMs, exponential);
  return Math.floor(ceiling * Math.min(1, Math.max(0, random())));
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * Calls `fn` until it succeeds, the error is not retryable, the attempts run
 * out or `signal` aborts; the last error is rethrown unchanged.
 * @example
 * const result = await withRetry((attempt, signal) => callApi({ signal }), { attempts: 3 }, {
 *   signal, onRetry: ({ attempt, delayMs }) => markRetrying(runId, attempt, delayMs),
 * });
 */
export async function withRetry<T>(
  fn: (attempt: number, signal: AbortSignal) => Promise<T>,
  policy: ToolRetryPolicy = {},
  options: WithRetryOptions = {},
): Promise<T> {
  const resolved = resolveRetryPolicy(policy);
  const { signal, onRetry } = options;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? systemClock;
  const wait = options.sleep ?? ((ms: number, s: AbortSignal | undefined) => clockSleep(ms, s, clock));
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal);
    try {
      return await fn(attempt, signal ?? NEVER_ABORTED);
    } catch (error) {
      // A canceled run is not retried, whatever the error looked like.
      if (signal?.aborted || attempt >= resolved.attempts || !resolved.retryOn(error)) throw error;
      const delayMs = backoffDelay(attempt, resolved, random);
      await onRetry?.({ attempt, delayMs, error });
      await wait(delayMs, signal);
    }
  }
}
