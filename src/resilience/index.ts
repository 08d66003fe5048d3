/**
 * Resilience primitives for any async call (tools, declared DAG nodes): retry with backoff, timeout, circuit
 * breaker, rate limit, concurrency, and the injectable clock they all wait on.
 * @module
 */
export { withRetry, backoffDelay, resolveRetryPolicy } from "./retry.js";
export type { RetryEvent, WithRetryOptions, ResolvedRetryPolicy, ToolRetryPolicy } from "./retry.js";
export { withTimeout } from "./timeout.js";
export type { WithTimeoutOptions } from "./timeout.js";
export { CircuitBreaker, CircuitBreakerRegistry, circuitBreakers } from "./circuit-breaker.js";
export type { CircuitBreakerOptions, CircuitSnapshot, CircuitState } from "./circuit-breaker.js";
export { TokenBucket, RateLimiterRegistry } from "./rate-limit.js";
export type { TokenBucketOptions } from "./rate-limit.js";
export { ConcurrencyLimiter, ConcurrencyRegistry } from "./concurrency.js";
export { ToolLimits, toolLimits } from "./limits.js";
export type { ToolLimitOptions, ToolLimitSpec } from "./limits.js";
export { callWithResilience, fallbackWorthy } from "./call.js";
export type { ResilientCallOptions, CallLimiter } from "./call.js";
export type { CallBreaker } from "./shared-breaker.js";
export type { SharedToolLimits } from "./shared-tool-limits.js";
export { ManualClock, systemClock } from "./clock.js";
export type { Clock } from "./clock.js";
