/**
 * `agentrt/resilience` — retry with backoff, timeouts, circuit breakers, rate limits and concurrency caps, on an
 * injectable clock. `defineTool`'s `retry`/`timeoutMs`/limits use these; they work on any async call too.
 * @module
 */
export {
  withRetry, backoffDelay, resolveRetryPolicy, withTimeout, CircuitBreaker, CircuitBreakerRegistry, circuitBreakers,
  TokenBucket, RateLimiterRegistry, ConcurrencyLimiter, ConcurrencyRegistry, ToolLimits, toolLimits,
  callWithResilience, fallbackWorthy, ManualClock, systemClock,
} from "../resilience/index.js";
export type {
  RetryEvent, WithRetryOptions, ResolvedRetryPolicy, WithTimeoutOptions, CircuitBreakerOptions, CircuitSnapshot,
  CircuitState, TokenBucketOptions, ToolLimitOptions, ToolLimitSpec, ResilientCallOptions, CallBreaker, CallLimiter, Clock,
} from "../resilience/index.js";
