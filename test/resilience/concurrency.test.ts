import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { ConcurrencyLimiter, ConcurrencyRegistry } from "../../src/resilience/concurrency.js";

/** A call that stays in flight until the test releases it, counting the peak. */
function gate() {
  let inFlight = 0;
  let peak = 0;
  const order: number[] = [];
  const releases = new Map<number, () => void>();
  const call = (id: number) => () =>
    new Promise<number>((resolve) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      order.push(id);
      releases.set(id, () => {
        inFlight--;
        resolve(id);
      });
    });
  const release = (id: number) => releases.get(id)!();
  return { call, release, order, peak: () => peak, inFlight: () => inFlight };
}

const tick = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe("ConcurrencyLimiter", () => {
  it("keeps at most N in flight and starts waiters in FIFO order", async () => {
    const limiter = new ConcurrencyLimiter(2);
    const g = gate();
    const results = [1, 2, 3, 4, 5].map((id) => limiter.run(g.call(id)));
    await tick();
    expect(g.order).toEqual([1, 2]);
    expect(limiter.pending).toBe(3);
    g.release(2);
    await tick();
    expect(g.order).toEqual([1, 2, 3]);
    g.release(1);
    g.release(3);
    await tick();
    expect(g.order).toEqual([1, 2, 3, 4, 5]);
    g.release(4);
    g.release(5);
    await expect(Promise.all(results)).resolves.toEqual([1, 2, 3, 4, 5]);
    expect(g.peak()).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it("stays within the cap under many concurrent callers", async () => {
    const limiter = new ConcurrencyLimiter(3);
    let inFlight = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        limiter.run(async () => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          for (let k = 0; k < i % 5; k++) await Promise.resolve();
          inFlight--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });

  it("a canceled waiter leaves the queue and does not take a slot", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const g = gate();
    const first = limiter.run(g.call(1));
    const controller = new AbortController();
    const canceled = limiter.run(g.call(2), controller.signal);
    const third = limiter.run(g.call(3));
    await tick();
    expect(limiter.pending).toBe(2);
    const reason = new ToolError("CANCELED", "run canceled");
    controller.abort(reason);
    await expect(canceled).rejects.toBe(reason);
    expect(limiter.pending).toBe(1);
    g.release(1);
    await tick();
    expect(g.order).toEqual([1, 3]);
    g.release(3);
    await Promise.all([first, third]);
  });

  it("holds the slot until the call settles, even after its signal aborted", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const g = gate();
    const controller = new AbortController();
    const running = limiter.run(g.call(1), controller.signal);
    await tick();
    controller.abort();
    const next = limiter.run(g.call(2));
    await tick();
    expect(g.order).toEqual([1]);
    expect(limiter.active).toBe(1);
    g.release(1);
    await running;
    await tick();
    expect(g.order).toEqual([1, 2]);
    g.release(2);
    await next;
  });

  it("releases the slot when the call throws; release is idempotent", async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(limiter.active).toBe(0);
    const release = await limiter.acquire();
    release();
    release();
    expect(limiter.active).toBe(0);
    const again = await limiter.acquire();
    expect(limiter.active).toBe(1);
    again();
  });

  it("raising the cap admits waiters at once", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const g = gate();
    const calls = [1, 2, 3].map((id) => limiter.run(g.call(id)));
    await tick();
    limiter.setLimit(3);
    await tick();
    expect(g.order).toEqual([1, 2, 3]);
    [1, 2, 3].forEach((id) => g.release(id));
    await Promise.all(calls);
  });

  it("keeps FIFO order across thousands of waiters with cancellations in between", async () => {
    const limiter = new ConcurrencyLimiter(1);
    const hold = await limiter.acquire();
    const started: number[] = [];
    const controllers: AbortController[] = [];
    const calls = Array.from({ length: 3000 }, (_, i) => {
      const controller = new AbortController();
      controllers.push(controller);
      return limiter.run(async () => void started.push(i), controller.signal).catch(() => undefined);
    });
    controllers.forEach((c, i) => {
      if (i % 3 === 0) c.abort();
    });
    expect(limiter.pending).toBe(2000);
    hold();
    await Promise.all(calls);
    expect(started).toEqual(Array.from({ length: 3000 }, (_, i) => i).filter((i) => i % 3 !== 0));
    expect(limiter.active).toBe(0);
    expect(limiter.pending).toBe(0);
  });

  it("rejects a nonsensical cap", () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter(1.5)).toThrow(RangeError);
    expect(new ConcurrencyLimiter(Infinity).limit).toBe(Infinity);
  });
});

describe("ConcurrencyRegistry", () => {
  it("shares one limiter per key; unconfigured keys get the default", () => {
    const registry = new ConcurrencyRegistry(4);
    expect(registry.get("a")).toBe(registry.get("a"));
    expect(registry.get("a").limit).toBe(4);
    const b = registry.configure("b", 1);
    expect(registry.get("b")).toBe(b);
    expect(registry.configure("b", 2)).toBe(b);
    expect(b.limit).toBe(2);
  });
});
