/**
 * One tool call through every resilience layer, in the order that keeps them
 * honest: retry ⟶ circuit breaker ⟶ limits ⟶ timeout ⟶ the call.
 * @module
 */
import { circuitBreakers } from "./circuit-breaker.js";
import { isAbortError } from "./abort.js";
import type { Clock } from "./clock.js";
import { toolLimits } from "./limits.js";
import type { CallBreaker } from "./shared-breaker.js";
import { withTimeout } from "./timeout.js";
import { type RetryEvent, type ToolRetryPolicy, withRetry } from "./retry.js";

/** Anything a call can pass through as its limits: the process-wide `ToolLimits`, or limits shared by processes. */
export interface CallLimiter {
  run<T>(tool: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** What {@link callWithResilience} needs to know about the call. */
export interface ResilientCallOptions<T = unknown> {
  /** Tool name: keys the breaker and the limits. */
  tool: string;
  /** Per-attempt timeout; leave unset when `fn` enforces its own (as `executeTool` does). @default no timeout layer */
  timeoutMs?: number;
  /** Retry policy. @default one attempt */
  retry?: ToolRetryPolicy;
  /** The run's cancel signal. */
  signal?: AbortSignal;
  /** Called before each backoff (show the run as RETRYING). */
  onRetry?: (event: RetryEvent) => void | Promise<void>;
  /** Breaker to use. @default circuitBreakers.get(tool) */
  breaker?: CallBreaker;
  /** Limits to pass. @default toolLimits */
  limits?: CallLimiter;
  /** Time source for timeout and backoff. @default systemClock */
  clock?: Clock;
  /** Jitter source. @default Math.random */
  random?: () => number;
  /**
   * Called with the primary's final error when another tool might succeed
   * (see {@link fallbackWorthy}), typically `callWithResilience` of `tool.fallback`.
   * @default no fallback
   */
  fallback?: (error: unknown) => Promise<T>;
}

// Failures that are the caller's or policy's doing: another tool would be refused the same way.
const NO_FALLBACK = new Set(["CANCELED", "TOOL_ARGS_INVALID", "PERMISSION_DENIED", "BUDGET_EXCEEDED", "DEADLINE_EXCEEDED"]);

/** True unless the failure is a cancellation, bad arguments, a refusal by policy or an exhausted budget. */
export function fallbackWorthy(error: unknown): boolean {
  if (isAbortError(error)) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return !(typeof code === "string" && NO_FALLBACK.has(code));
}

/**
 * Calls `fn(attempt, signal)` with retry outermost (no slot is held while
 * backing off), the breaker before the limits (an open circuit fails fast
 * instead of queueing) and the timeout innermost (queueing time is not the
 * tool's time). CIRCUIT_OPEN is not transient, so an opening breaker also
 * ends the retries; then `fallback`, if given, gets its turn.
 */
export async function callWithResilience<T>(
  fn: (attempt: number, signal: AbortSignal) => Promise<T>,
  options: ResilientCallOptions<T>,
): Promise<T> {
  try {
    return await callPrimary(fn, options);
  } catch (error) {
    if (options.fallback === undefined || options.signal?.aborted || !fallbackWorthy(error)) throw error;
    return options.fallback(error);
  }
}

function callPrimary<T>(fn: (attempt: number, signal: AbortSignal) => Promise<T>, options: ResilientCallOptions<T>): Promise<T> {
  const breaker = options.breaker ?? circuitBreakers.get(options.tool);
  const limits = options.limits ?? toolLimits;
  return withRetry(
    (attempt, signal) =>
      breaker.run(() =>
        limits.run(
          options.tool,
          () =>
            options.timeoutMs === undefined
              ? fn(attempt, signal)
              : withTimeout((s) => fn(attempt, s), options.timeoutMs, signal, { clock: options.clock, label: options.tool }),
          signal,
        ),
        signal,
      ),
    options.retry,
    { signal: options.signal, onRetry: options.onRetry, clock: options.clock, random: options.random },
  );
}
