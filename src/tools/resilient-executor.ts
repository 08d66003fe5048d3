/**
 * The default executor of agent graphs: each call goes through the tool's
 * retry policy, its circuit breaker, the process-wide limits and its timeout
 * (see `callWithResilience`), then becomes a {@link ToolOutcome}.
 * @module
 */
import { type CircuitBreakerRegistry, circuitBreakers } from "./circuit-breaker.js";
import { asToolError, toolContext, type ToolExecutor } from "./execute-tool.js";
import { isTransientError } from "../errors.js";
import type { AgentTool } from "./define-tool.js";
import { isDefiniteFailure } from "./ledger-call.js";
import { withLedger } from "./ledger-executor.js";
import { callWithResilience } from "./resilience-call.js";
import type { Clock } from "./resilience-clock.js";
import type { ToolLimits } from "./resilience-limits.js";
import type { RetryEvent } from "./retry.js";

/** Options of {@link createResilientExecutor}. */
export interface ResilientExecutorOptions {
  /** Called before each backoff, e.g. to mark the run RETRYING. @default none */
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
 */
export function createResilientExecutor(options: ResilientExecutorOptions = {}): ToolExecutor {
  const breakers = options.breakers ?? circuitBreakers;
  return withLedger(async (tool, args, scope) => {
    let externalOperationId: string | undefined;
    let attempts = 0;
    const setId = (id: string) => { externalOperationId = id; };
    try {
      const result = await callWithResilience(
        async (attempt, signal) => {
          attempts = attempt;
          return tool.execute(args, toolContext(scope, attempt, signal, setId));
        },
        {
          tool: tool.name,
          timeoutMs: tool.timeoutMs,
          retry: retryPolicyOf(tool),
          signal: scope.signal,
          breaker: breakers.get(tool.name),
          limits: options.limits,
          clock: options.clock,
          onRetry: options.onRetry && ((event) => options.onRetry?.({ ...event, tool: tool.name, toolCallId: scope.toolCallId })),
        },
      );
      return { ok: true, result, externalOperationId, attempts };
    } catch (cause) {
      return { ok: false, error: asToolError(tool, cause), externalOperationId, attempts: Math.max(attempts, 1) };
    }
  });
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
