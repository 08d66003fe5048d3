/**
 * A tool's declared limits held across processes: its concurrency slot, a token of its bucket and a global slot,
 * taken in that order (as the process-local `ToolLimits` does) from a {@link SharedLimitStore}. An empty bucket says
 * how long until its next token and the caller sleeps that long (plus a little jitter, so waiting processes do not
 * all ask at the same instant); a full set of slots is waited out until a release in any process is announced.
 * @module
 */
import { throwIfAborted } from "./abort.js";
import { sleep } from "./clock.js";
import type { ToolLimitSpec } from "./limits.js";
import { SharedCircuitBreaker, type CallBreaker } from "./shared-breaker.js";
import type { HeldSlot, SharedLimitStore } from "./shared-limits.js";

/** The key of the global concurrency cap; no tool can be named so (tool names are letters, digits, _ and -). */
export const GLOBAL_LIMIT_KEY = "*";

/** Options of {@link SharedToolLimits}. */
export interface SharedToolLimitsOptions {
  /** Tool calls with declared limits in flight at once across all processes. @default no global cap */
  globalConcurrency?: number;
  /** Jitter source. @default Math.random */
  random?: () => number;
}

/** Runs tool calls within limits every process on the store shares. */
export class SharedToolLimits {
  readonly store: SharedLimitStore;
  readonly #global: number | undefined;
  readonly #random: () => number;

  constructor(store: SharedLimitStore, options: SharedToolLimitsOptions = {}) {
    this.store = store;
    this.#global = options.globalConcurrency;
    this.#random = options.random ?? Math.random;
  }

  /** The shared breaker of `tool` with its declared trip rules. */
  breaker(tool: string, spec: ToolLimitSpec["breaker"] = {}): CallBreaker {
    return new SharedCircuitBreaker(this.store, tool, spec);
  }

  /**
   * Runs `fn` once it holds a slot of `tool`, a token of its bucket and a global slot (each only if declared),
   * holding the slots until `fn` settles. Waiting rejects with the abort reason when `signal` aborts.
   */
  async run<T>(tool: string, spec: ToolLimitSpec, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const held: HeldSlot[] = [];
    try {
      if (spec.concurrency !== undefined) held.push(await this.#holdSlot(tool, spec.concurrency, signal));
      if (spec.rate !== undefined) await this.#takeToken(tool, spec.rate, signal);
      if (this.#global !== undefined) held.push(await this.#holdSlot(GLOBAL_LIMIT_KEY, this.#global, signal));
      return await fn();
    } finally {
      // A release that cannot reach the database is not the call's failure: the slot's lease frees it.
      await Promise.all(held.map((slot) => slot.release().catch(() => undefined)));
    }
  }

  async #takeToken(key: string, rate: NonNullable<ToolLimitSpec["rate"]>, signal: AbortSignal | undefined): Promise<void> {
    const shape = { ratePerSecond: rate.ratePerSecond, burst: rate.burst ?? Math.max(1, Math.ceil(rate.ratePerSecond)) };
    for (;;) {
      throwIfAborted(signal);
      const waitMs = await this.store.takeToken(key, shape);
      if (waitMs === 0) return;
      await sleep(waitMs + Math.floor(this.#random() * (250 / shape.ratePerSecond)), signal);
    }
  }

  async #holdSlot(key: string, limit: number, signal: AbortSignal | undefined): Promise<HeldSlot> {
    for (;;) {
      throwIfAborted(signal);
      const first = await this.store.tryHoldSlot(key, limit);
      if (first === "contended") continue;
      if (first !== "full") return first;
      // Listen first, then look again: a release between the two is then heard, not missed.
      const stop = new AbortController();
      const wait = this.store.slotFreed(key, signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]));
      try {
        await wait.ready;
        const second = await this.store.tryHoldSlot(key, limit);
        if (second !== "full" && second !== "contended") return second;
        if (second === "full") await wait.freed;
      } finally {
        stop.abort();
      }
    }
  }
}
