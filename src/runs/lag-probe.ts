/**
 * How late this process's event loop runs: a worker claims no more runs while it lags (they would only queue for
 * the CPU here, and left QUEUED they can go to a less busy worker).
 * @module
 */

/** Event-loop lag of this process: how late a 10 ms timer fires, smoothed over the last few ticks. */
export class LagProbe {
  private smoothed = 0;
  private timer: NodeJS.Timeout | undefined;

  get ms(): number {
    return this.smoothed;
  }

  start(): void {
    let expected = performance.now() + 10;
    this.timer = setInterval(() => {
      const now = performance.now();
      this.smoothed = 0.7 * this.smoothed + 0.3 * Math.max(0, now - expected);
      expected = now + 10;
    }, 10);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
