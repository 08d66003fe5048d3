/**
 * Future moments a worker must look for work at: a run queued or backing off that becomes claimable at its
 * `available_at` (heard as a signal before then). One timer, for the earliest.
 * @module
 */

/** Longest delay setTimeout takes as it is (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `wake` at each time added (times that fall together call it once). */
export class WakeTimes {
  /** Ascending, without duplicates. */
  #times: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Infinity;
  readonly #wake: () => void;
  readonly #max: number;

  /** `max`: most times kept; beyond it the latest are dropped (the worker's safety poll finds those runs). */
  constructor(wake: () => void, max = 1000) {
    this.#wake = wake;
    this.#max = max;
  }

  /** Calls `wake` at `at` (ms since epoch). */
  add(at: number): void {
    let low = 0;
    let high = this.#times.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.#times[mid]! < at) low = mid + 1;
      else high = mid;
    }
    if (this.#times[low] === at) return;
    this.#times.splice(low, 0, at);
    if (this.#times.length > this.#max) this.#times.pop();
    if (at < this.#armedFor) this.#arm();
  }

  /** Forgets every time. */
  clear(): void {
    this.#times = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
  }

  #arm(): void {
    clearTimeout(this.#timer);
    const first = this.#times[0];
    this.#armedFor = first ?? Infinity;
    if (first === undefined) return;
    this.#timer = setTimeout(() => this.#fire(), Math.min(MAX_TIMER_MS, Math.max(0, first - Date.now())));
    // The worker's loop keeps the process alive, never a time it waits for.
    this.#timer.unref();
  }

  #fire(): void {
    const now = Date.now();
    const due = this.#times.findIndex((t) => t > now);
    const fired = due === -1 ? this.#times.length : due;
    this.#times.splice(0, fired);
    this.#arm();
    if (fired > 0) this.#wake();
  }
}
