/**
 * Per-tool rate limits as token buckets: `ratePerSecond` tokens refill
 * continuously up to `burst`; each call takes one. Waiters queue FIFO and are
 * woken by one timer set for when the next token exists, never by polling.
 * @module
 */
import { abortReason } from "./abort.js";
import { type Clock, systemClock } from "./clock.js";
import { WaitQueue } from "./queue.js";

/** A bucket's shape. */
export interface TokenBucketOptions {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size: calls allowed back to back after a quiet period. @default max(1, ceil(ratePerSecond)) */
  burst?: number;
  /** Time source. @default systemClock */
  clock?: Clock;
}

interface Waiter {
  resolve: () => void;
  detach: () => void;
}

// Float refill can leave 0.9999999 of a token; count that as one.
const EPSILON = 1e-9;

/** A token bucket with a fair async {@link TokenBucket.acquire}. Starts full. */
export class TokenBucket {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #refilledAt: number;
  readonly #queue = new WaitQueue<Waiter>();
  #cancelTimer: (() => void) | undefined;

  constructor(options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError(`ratePerSecond must be > 0, got ${options.ratePerSecond}`);
    this.ratePerSecond = options.ratePerSecond;
    this.burst = options.burst ?? Math.max(1, Math.ceil(options.ratePerSecond));
    if (!(this.burst >= 1)) throw new RangeError(`burst must be >= 1, got ${this.burst}`);
    this.#clock = options.clock ?? systemClock;
    this.#tokens = this.burst;
    this.#refilledAt = this.#clock.now();
  }

  /** Tokens available now (fractional). */
  get available(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Callers waiting for a token. */
  get pending(): number {
    return this.#queue.size;
  }

  /** Takes a token if one is free and nobody is queued ahead; never waits. */
  tryAcquire(): boolean {
    this.#refill();
    if (this.#queue.size > 0 || this.#tokens + EPSILON < 1) return false;
    this.#tokens = Math.max(0, this.#tokens - 1);
    return true;
  }

  /** Waits (FIFO) for a token; rejects with the abort reason, leaving the queue, if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        withdraw();
        if (this.#queue.size === 0) this.#stopTimer();
        reject(abortReason(signal));
      };
      const withdraw = this.#queue.push({ resolve, detach: () => signal?.removeEventListener("abort", onAbort) });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#schedule();
    });
  }

  #refill(): void {
    const now = this.#clock.now();
    const elapsed = Math.max(0, now - this.#refilledAt);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.ratePerSecond) / 1000);
    this.#refilledAt = now;
  }

  #schedule(): void {
    if (this.#cancelTimer !== undefined) return;
    this.#refill();
    while (this.#queue.size > 0 && this.#tokens + EPSILON >= 1) {
      this.#tokens = Math.max(0, this.#tokens - 1);
      const waiter = this.#queue.shift();
      waiter?.detach();
      waiter?.resolve();
    }
    if (this.#queue.size === 0) return;
    const waitMs = Math.ceil(((1 - this.#tokens) * 1000) / this.ratePerSecond);
    this.#cancelTimer = this.#clock.setTimer(() => {
      this.#cancelTimer = undefined;
      this.#schedule();
    }, waitMs);
  }

  #stopTimer(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }
}

/** Token buckets keyed by name (a tool); a key nobody configured is not limited. */
export class RateLimiterRegistry {
  readonly #buckets = new Map<string, TokenBucket>();

  /** Sets (or replaces) the limit of `key`. */
  configure(key: string, options: TokenBucketOptions): TokenBucket {
    const bucket = new TokenBucket(options);
    this.#buckets.set(key, bucket);
    return bucket;
  }

  /** The bucket of `key`, if it is limited. */
  get(key: string): TokenBucket | undefined {
    return this.#buckets.get(key);
  }

  /** Waits for a token of `key`; resolves at once for an unlimited key. */
  async acquire(key: string, signal?: AbortSignal): Promise<void> {
    await this.#buckets.get(key)?.acquire(signal);
  }

  /** Forgets every limit (tests, or a config reload). */
  clear(): void {
    this.#buckets.clear();
  }
}
