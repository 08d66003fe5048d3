/**
 * A circuit breaker whose state lives in a {@link SharedLimitStore}: failures in one process open it in all, and
 * after the cool-down exactly one call in all processes is the half-open probe. The rules are the process-local
 * `CircuitBreaker`'s, with one difference kept on purpose: a success writes nothing when its admission saw no
 * failures (so a healthy tool's calls cost one read), which means failures counted by other processes meanwhile are
 * not reset by it; the circuit may then open a little sooner, never later.
 * @module
 */
import { ToolError } from "../errors.js";
import { countsAgainstTool } from "./counts-against-tool.js";
import type { SharedLimitStore } from "./shared-limits.js";

/** Anything a call can pass through as its breaker. */
export interface CallBreaker {
  /** Runs `fn` through the breaker; a failure after `signal` (the caller's) aborted is the caller giving up, not the tool failing. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/** Trip rules as a tool declares them. */
export interface SharedBreakerOptions {
  /** Consecutive failures (in all processes) that open the circuit. @default 5 */
  failureThreshold?: number;
  /** How long the circuit stays open before one probe is allowed. @default 30000 */
  cooldownMs?: number;
}

/** One tool's breaker on shared state. */
export class SharedCircuitBreaker implements CallBreaker {
  readonly name: string;
  readonly #store: SharedLimitStore;
  readonly #shape: { failureThreshold: number; cooldownMs: number };

  constructor(store: SharedLimitStore, name: string, options: SharedBreakerOptions = {}) {
    this.#store = store;
    this.name = name;
    this.#shape = {
      failureThreshold: Math.max(1, Math.floor(options.failureThreshold ?? 5)),
      cooldownMs: Math.max(0, options.cooldownMs ?? 30_000),
    };
  }

  /** Refuses at once with CIRCUIT_OPEN while open (or while another process probes), else runs `fn` and records its outcome. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const admission = await this.#store.admit(this.name, this.#shape);
    if (!admission.admitted) {
      throw new ToolError("CIRCUIT_OPEN", `${this.name}: circuit open after ${admission.consecutiveFailures} consecutive failures`, {
        details: { tool: this.name, consecutiveFailures: admission.consecutiveFailures, retryInMs: admission.retryInMs, shared: true },
      });
    }
    let result: T;
    try {
      result = await fn();
    } catch (error) {
      // A canceled call, one cut short by its run's lost lease, or one that lost agentrt's own database (a restart)
      // proves nothing about the tool: counted, it would open the circuit in every process. A canceled probe lets
      // the next call probe.
      await this.#record(countsAgainstTool(error) && signal?.aborted !== true ? "failure" : "neutral", admission);
      throw error;
    }
    await this.#record("success", admission);
    return result;
  }

  async #record(outcome: "success" | "failure" | "neutral", admission: { probe: string | undefined; consecutiveFailures: number }): Promise<void> {
    // Losing the record to a storage failure must not turn the call's own outcome into another one.
    await this.#store.record(this.name, this.#shape, outcome, admission).catch(() => undefined);
  }
}
