/**
 * The default executor of agent graphs: each call goes through the tool's
 * retry policy, its circuit breaker, its limits and its timeout
 * (see `callWithResilience`), then becomes a {@link ToolOutcome}. A tool that
 * declares `limits` has them (and its breaker) shared by every process when the
 * scope carries `sharedLimits` (the runtime on PostgreSQL); otherwise, and for
 * a tool declaring none, they are this process's and cost the database nothing. The run's
 * guard (in the scope) may refuse an attempt (deadline) and sees each backoff.
 * @module
 */
import {
  type CallBreaker, type CallLimiter, type CircuitBreakerRegistry, circuitBreakers, callWithResilience, type Clock, type ToolLimits, toolLimits,
  type RetryEvent,
} from "../resilience/index.js";
import { asToolError, toolContext, type ToolCallScope, type ToolExecutor } from "./execute-tool.js";
import { isTransientError } from "../errors.js";
import type { AgentTool } from "./define-tool.js";
import { isDefiniteFailure, withLedger } from "../ledger/index.js";

/** Options of {@link createResilientExecutor}. */
export interface ResilientExecutorOptions {
  /** Called before each backoff, e.g. to report the retry. @default none */
  onRetry?: (event: RetryEvent & { tool: string; toolCallId: string }) => void | Promise<void>;
  /** Where breakers live. @default the process-wide `circuitBreakers` */
  breakers?: CircuitBreakerRegistry;
  /** Concurrency and rate limits. @default the process-wide `toolLimits` */
  limits?: ToolLimits;
  /** Time source for timeouts and backoff. @default systemClock */
  clock?: Clock;
}

/**
 * Builds a {@link ToolExecutor} that honours each tool's `retry` and `timeoutMs`;
 * side-effecting calls with a run database go through the ledger (see `withLedger`).
 * With `scope.guard`, an attempt the guard refuses is not made (nor waited
 * for), and the guard hears when a backoff starts and ends (the run shows RETRYING).
 */
export function createResilientExecutor(options: ResilientExecutorOptions = {}): ToolExecutor {
  const breakers = options.breakers ?? circuitBreakers;
  const local = options.limits ?? toolLimits;
  const ledgered = withLedger(async (tool, args, scope) => {
    let externalOperationId: string | undefined;
    let attempts = 0;
    const setId = (id: string) => { externalOperationId = id; };
    const backoff = backoffReporter(tool, scope);
    const { breaker, limits } = limitsOf(tool, scope, breakers, local);
    try {
      const result = await callWithResilience(
        async (attempt, signal) => {
          attempts = attempt;
          backoff.end(attempt);
          return tool.execute(args, toolContext(scope, attempt, signal, setId));
        },
        {
          tool: tool.name,
          timeoutMs: tool.timeoutMs,
          retry: retryPolicyOf(tool),
          signal: scope.signal,
          breaker,
          limits,
          clock: options.clock,
          onRetry: async (event) => {
            // Checked before waiting, outside the breaker: a stop is not the tool failing.
            const stop = scope.guard?.beforeToolAttempt?.({ tool: tool.name, toolCallId: scope.toolCallId, attempt: event.attempt + 1, delayMs: event.delayMs });
            if (stop !== undefined) throw stop;
            backoff.start(event.attempt, event.delayMs);
            await options.onRetry?.({ ...event, tool: tool.name, toolCallId: scope.toolCallId });
          },
        },
      );
      return { ok: true, result, externalOperationId, attempts };
    } catch (cause) {
      return { ok: false, error: asToolError(tool, cause), externalOperationId, attempts: Math.max(attempts, 1) };
    } finally {
      backoff.end(attempts + 1);
    }
  });
  return async (tool, args, scope) => {
    // Refused before any intent is written: the call never started.
    const stop = scope.guard?.beforeToolAttempt?.({ tool: tool.name, toolCallId: scope.toolCallId, attempt: 1 });
    if (stop !== undefined) return { ok: false, error: stop, externalOperationId: undefined, attempts: 0 };
    return ledgered(tool, args, scope);
  };
}

/** The breaker and limits a call of `tool` passes: shared by processes for a tool that declares limits, if the scope has them. */
function limitsOf(tool: AgentTool, scope: ToolCallScope, breakers: CircuitBreakerRegistry, local: ToolLimits): { breaker: CallBreaker; limits: CallLimiter } {
  const declared = tool.limits;
  if (declared === undefined) return { breaker: breakers.get(tool.name), limits: local };
  const shared = scope.sharedLimits;
  if (shared !== undefined) {
    return { breaker: shared.breaker(tool.name, declared.breaker), limits: { run: (name, fn, signal) => shared.run(name, declared, fn, signal) } };
  }
  local.declare(tool.name, declared);
  return { breaker: breakers.get(tool.name, declared.breaker), limits: local };
}

/** Tells the guard once when a call starts backing off and once when that ends. */
function backoffReporter(tool: AgentTool, scope: ToolCallScope): { start(failed: number, delayMs: number): void; end(next: number): void } {
  let waiting = false;
  const guard = scope.guard;
  return {
    start(failed, delayMs) {
      if (waiting || guard?.backoffStarted === undefined) return;
      waiting = true;
      guard.backoffStarted({ tool: tool.name, toolCallId: scope.toolCallId, attempt: failed, delayMs });
    },
    end(next) {
      if (!waiting) return;
      waiting = false;
      guard?.backoffEnded?.({ tool: tool.name, toolCallId: scope.toolCallId, attempt: next });
    },
  };
}

/**
 * A side effect the external system cannot dedupe is retried only after a
 * failure that proves it did not happen: after a timeout or a dropped
 * connection it may have, and calling again could do it twice.
 */
function retryPolicyOf(tool: AgentTool): AgentTool["retry"] {
  if (!tool.sideEffect || tool.idempotent) return tool.retry;
  const retryable = tool.retry.retryOn ?? isTransientError;
  return { ...tool.retry, retryOn: (error) => isDefiniteFailure(error) && retryable(error) };
}
