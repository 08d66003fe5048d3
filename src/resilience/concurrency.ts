/**
 * A fair async semaphore for the global and per-tool concurrency caps.
 *
 * Not p-limit / p-queue: p-limit cannot drop a queued call when its run is
 * canceled, and p-queue frees the slot as soon as the signal aborts even when
 * the call is still running, so "in flight" would undercount. Here a slot is
 * held until the call really settles, and a canceled waiter leaves the queue.
 * @module
 */
import { abortReason } from "./abort.js";
import { WaitQueue } from "./queue.js";

interface Waiter {
  grant: (release: () => void) => void;
  detach: () => void;
}

/** At most `limit` holders at once; waiters are served first come, first served. */
export class ConcurrencyLimiter {
  #limit: number;
  #active = 0;
  readonly #queue = new WaitQueue<Waiter>();

  /** @param limit slots; `Infinity` for no cap. */
  constructor(limit: number) {
    this.#limit = checkLimit(limit);
  }

  /** Slots in use. */
  get active(): number {
    return this.#active;
  }

  /** Callers waiting for a slot. */
  get pending(): number {
    return this.#queue.size;
  }

  /** The cap. */
  get limit(): number {
    return this.#limit;
  }

  /** Changes the cap; raising it admits waiters at once, lowering it lets holders finish. */
  setLimit(limit: number): void {
    this.#limit = checkLimit(limit);
    this.#drain();
  }

  /**
   * Waits for a slot (FIFO) and returns its release function, which is safe to
   * call twice. Rejects with the abort reason, leaving the queue, if `signal` aborts first.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#active < this.#limit && this.#queue.size === 0) return Promise.resolve(this.#take());
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        withdraw();
        reject(abortReason(signal));
      };
      const withdraw = this.#queue.push({
        grant: resolve,
        detach: () => signal?.removeEventListener("abort", onAbort),
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Runs `fn` holding one slot until its promise settles. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  #take(): () => void {
    this.#active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active--;
      this.#drain();
    };
  }

  #drain(): void {
    while (this.#active < this.#limit && this.#queue.size > 0) {
      const waiter = this.#queue.shift();
      if (waiter === undefined) break;
      waiter.detach();
      waiter.grant(this.#take());
    }
  }
}

function checkLimit(limit: number): number {
  if (!(limit >= 1) || (!Number.isInteger(limit) && limit !== Infinity)) {
    throw new RangeError(`concurrency limit must be a positive integer or Infinity, got ${limit}`);
  }
  return limit;
}

/** Limiters keyed by name (a tool), created on first use with the configured or default cap. */
export class ConcurrencyRegistry {
  readonly #limiters = new Map<string, ConcurrencyLimiter>();
  readonly #defaultLimit: number;

  /** @param defaultLimit cap of a key nobody configured. @default Infinity */
  constructor(defaultLimit = Infinity) {
    this.#defaultLimit = checkLimit(defaultLimit);
  }

  /** Sets the cap of `key` (creating its limiter if needed). */
  configure(key: string, limit: number): ConcurrencyLimiter {
    const existing = this.#limiters.get(key);
    if (existing !== undefined) {
      existing.setLimit(limit);
      return existing;
    }
    const limiter = new ConcurrencyLimiter(limit);
    this.#limiters.set(key, limiter);
    return limiter;
  }

  /** The limiter of `key`. */
  get(key: string): ConcurrencyLimiter {
    return this.#limiters.get(key) ?? this.configure(key, this.#defaultLimit);
  }

  /** Forgets every limiter (tests, or a config reload); holders of old slots are unaffected. */
  clear(): void {
    this.#limiters.clear();
  }
}
