/**
 * Per-tool circuit breaker: after K consecutive failures calls fail fast with
 * CIRCUIT_OPEN; after a cool-down one probe is let through and decides.
 * @module
 */
import { ToolError } from "../errors.js";
import { type Clock, systemClock } from "./clock.js";
import { countsAgainstTool } from "./counts-against-tool.js";

/** closed: calls flow; open: calls are refused; half-open: one probe is in charge. */
export type CircuitState = "closed" | "open" | "half-open";

/** How a breaker trips and recovers. */
export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. @default 5 */
  failureThreshold?: number;
  /** How long the circuit stays open before a probe is allowed. @default 30000 */
  cooldownMs?: number;
  /** Which errors count as the tool failing. @default every error except cancellation and the runtime's database going away (`countsAgainstTool`) */
  isFailure?: (error: unknown) => boolean;
  /** Time source. @default systemClock */
  clock?: Clock;
}

/** A breaker's state for status pages and traces. */
export interface CircuitSnapshot {
  state: CircuitState;
  consecutiveFailures: number;
  /** Clock time the circuit last opened, or undefined while closed. */
  openedAt: number | undefined;
}

/** One tool's breaker. Its state is plain memory: shared by every run of the process, not across processes. */
export class CircuitBreaker {
  readonly name: string;
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #isFailure: (error: unknown) => boolean;
  readonly #clock: Clock;
  #failures = 0;
  #openedAt: number | undefined;
  #probing = false;

  constructor(name: string, options: CircuitBreakerOptions = {}) {
    this.name = name;
    this.#threshold = Math.max(1, Math.floor(options.failureThreshold ?? 5));
    this.#cooldownMs = Math.max(0, options.cooldownMs ?? 30_000);
    this.#isFailure = options.isFailure ?? countsAgainstTool;
    this.#clock = options.clock ?? systemClock;
  }

  /** The state now; an open circuit whose cool-down has passed reads as half-open. */
  get state(): CircuitState {
    if (this.#openedAt === undefined) return "closed";
    if (this.#probing) return "half-open";
    return this.#clock.now() - this.#openedAt >= this.#cooldownMs ? "half-open" : "open";
  }

  /** State, failure count and when it opened. */
  snapshot(): CircuitSnapshot {
    return { state: this.state, consecutiveFailures: this.#failures, openedAt: this.#openedAt };
  }

  /**
   * Runs `fn` through the breaker: refuses at once with CIRCUIT_OPEN while
   * open (or while another call is the half-open probe), records the outcome.
   * A failure after `signal` (the caller's) aborted is the caller giving up, whatever its reason says.
   */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const probe = this.#admit();
    try {
      const result = await fn();
      this.#onSuccess();
      return result;
    } catch (error) {
      // A run whose lease was lost aborts with LEASE_LOST, not a cancellation code: counted, a server restart's worth
      // of lost leases opened the circuit and the next runs were refused a tool that never failed.
      this.#onError(error, probe, signal?.aborted === true);
      throw error;
    }
  }

  /** Closes the circuit and forgets past failures (an operator override, and test setup). */
  reset(): void {
    this.#failures = 0;
    this.#openedAt = undefined;
    this.#probing = false;
  }

  /** Returns whether the admitted call is the half-open probe; throws CIRCUIT_OPEN if not admitted. */
  #admit(): boolean {
    const state = this.state;
    if (state === "closed") return false;
    if (state === "half-open" && !this.#probing) {
      this.#probing = true;
      return true;
    }
    const retryInMs = Math.max(0, (this.#openedAt ?? 0) + this.#cooldownMs - this.#clock.now());
    throw new ToolError("CIRCUIT_OPEN", `${this.name}: circuit open after ${this.#failures} consecutive failures`, {
      details: { tool: this.name, consecutiveFailures: this.#failures, retryInMs: this.#probing ? undefined : retryInMs },
    });
  }

  #onSuccess(): void {
    this.reset();
  }

  #onError(error: unknown, probe: boolean, callerGaveUp: boolean): void {
    if (callerGaveUp || !this.#isFailure(error)) {
      // A canceled probe proves nothing: let the next call probe instead.
      if (probe) this.#probing = false;
      return;
    }
    this.#failures++;
    if (probe || this.#failures >= this.#threshold) {
      this.#openedAt = this.#clock.now();
      this.#probing = false;
    }
  }
}

/** Breakers keyed by tool name, created on first use. */
export class CircuitBreakerRegistry {
  readonly #breakers = new Map<string, CircuitBreaker>();
  readonly #defaults: CircuitBreakerOptions;

  constructor(defaults: CircuitBreakerOptions = {}) {
    this.#defaults = defaults;
  }

  /** The breaker of `name`; `options` apply only when it is created by this call. */
  get(name: string, options: CircuitBreakerOptions = {}): CircuitBreaker {
    let breaker = this.#breakers.get(name);
    if (breaker === undefined) {
      breaker = new CircuitBreaker(name, { ...this.#defaults, ...options });
      this.#breakers.set(name, breaker);
    }
    return breaker;
  }

  /** Snapshot of every breaker created so far, by tool name. */
  snapshot(): Record<string, CircuitSnapshot> {
    return Object.fromEntries([...this.#breakers].map(([name, b]) => [name, b.snapshot()]));
  }

  /** Forgets every breaker (tests, or a config reload). */
  clear(): void {
    this.#breakers.clear();
  }
}

/** The process-wide breakers: every run in this process sees the same state per tool. */
export const circuitBreakers = new CircuitBreakerRegistry();
