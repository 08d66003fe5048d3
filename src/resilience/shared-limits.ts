/**
 * Limit state that several processes share (one PostgreSQL database): token buckets, concurrency slots and
 * circuit breakers kept per key (a tool's name) where every process reads and changes them atomically, so a tool
 * limited to 5 calls/s makes at most 5 calls/s however many workers call it. The waiting and the breaker's rules
 * live above this interface (shared-tool-limits.ts, shared-breaker.ts); an implementation only keeps the state.
 * @module
 */

/** A token bucket's shape: `ratePerSecond` tokens refill continuously up to `burst`; each call takes one. */
export interface SharedBucketShape {
  ratePerSecond: number;
  burst: number;
}

/** A concurrency slot held by this process until released, or until its lease runs out unrenewed (a crash). */
export interface HeldSlot {
  readonly key: string;
  /** Frees the slot and wakes a waiter in any process. Safe to call twice. */
  release(): Promise<void>;
}

/** What a breaker's admission found. */
export type BreakerAdmission =
  /** `probe`: this call's probe token when it is the half-open probe (record passes it back), else undefined. */
  | { admitted: true; probe: string | undefined; consecutiveFailures: number }
  | { admitted: false; consecutiveFailures: number; retryInMs: number | undefined };

/** How a breaker trips and recovers (the same numbers in every process). */
export interface SharedBreakerShape {
  failureThreshold: number;
  cooldownMs: number;
}

/** Shared limit state; every operation is atomic across processes. */
export interface SharedLimitStore {
  /** Takes one token of `key`'s bucket; resolves 0 when taken, else the milliseconds until one will exist. */
  takeToken(key: string, bucket: SharedBucketShape): Promise<number>;
  /**
   * Takes one of `limit` slots of `key` if one is free: the slot, `"full"` when all are held, or `"contended"`
   * when another process took the free one first (try again at once).
   */
  tryHoldSlot(key: string, limit: number): Promise<HeldSlot | "full" | "contended">;
  /**
   * Resolves when a slot of `key` may have been freed (a release in any process, or the slow safety poll), or at
   * once if the signal aborts; never rejects. `ready` resolves once releases from now on are heard.
   */
  slotFreed(key: string, signal?: AbortSignal): { ready: Promise<void>; freed: Promise<void> };
  /** Admits a call through `key`'s breaker: closed admits; open refuses; after the cool-down one caller in all processes is the probe. */
  admit(key: string, shape: SharedBreakerShape): Promise<BreakerAdmission>;
  /** Records an admitted call's outcome: "success" closes, "failure" counts (and opens), "neutral" only frees a probe. */
  record(key: string, shape: SharedBreakerShape, outcome: "success" | "failure" | "neutral", admission: { probe: string | undefined; consecutiveFailures: number }): Promise<void>;
}
