import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { RateLimiterRegistry, TokenBucket } from "../../src/resilience/rate-limit.js";
import { ManualClock } from "../../src/resilience/clock.js";

describe("TokenBucket", () => {
  it("allows a burst, then one call per 1/rate seconds", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 10, burst: 3, clock });
    const granted: number[] = [];
    const all = [1, 2, 3, 4, 5, 6].map((id) => bucket.acquire().then(() => granted.push(id)));
    await clock.advance(0);
    expect(granted).toEqual([1, 2, 3]);
    expect(bucket.pending).toBe(3);
    await clock.advance(99);
    expect(granted).toEqual([1, 2, 3]);
    await clock.advance(1);
    expect(granted).toEqual([1, 2, 3, 4]);
    await clock.advance(200);
    expect(granted).toEqual([1, 2, 3, 4, 5, 6]);
    await Promise.all(all);
    expect(clock.pendingTimers).toBe(0);
  });

  it("waits on a single timer instead of polling", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, clock });
    expect(bucket.tryAcquire()).toBe(true);
    const waits = Array.from({ length: 5 }, () => bucket.acquire());
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(5000);
    await Promise.all(waits);
    expect(clock.pendingTimers).toBe(0);
  });

  it("refills up to the burst only", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 5, burst: 2, clock });
    expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(true);
    expect(bucket.tryAcquire()).toBe(false);
    await clock.advance(60_000);
    expect(bucket.available).toBe(2);
  });

  it("serves waiters FIFO: a newcomer does not jump the queue when a token appears", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, clock });
    expect(bucket.tryAcquire()).toBe(true);
    const granted: string[] = [];
    const a = bucket.acquire().then(() => granted.push("a"));
    await clock.advance(1000);
    expect(granted).toEqual(["a"]);
    const b = bucket.acquire().then(() => granted.push("b"));
    await clock.advance(999);
    expect(bucket.tryAcquire()).toBe(false);
    const c = bucket.acquire().then(() => granted.push("c"));
    await clock.advance(1);
    expect(bucket.tryAcquire()).toBe(false);
    await clock.advance(1000);
    await Promise.all([a, b, c]);
    expect(granted).toEqual(["a", "b", "c"]);
  });

  it("a canceled waiter leaves the queue; the next one gets its token", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 1, burst: 1, clock });
    expect(bucket.tryAcquire()).toBe(true);
    const controller = new AbortController();
    const granted: string[] = [];
    const canceled = bucket.acquire(controller.signal).then(() => granted.push("canceled"));
    const next = bucket.acquire().then(() => granted.push("next"));
    await clock.advance(500);
    const reason = new ToolError("CANCELED", "run canceled");
    controller.abort(reason);
    await expect(canceled).rejects.toBe(reason);
    await clock.advance(500);
    await next;
    expect(granted).toEqual(["next"]);
  });

  it("rejects at once when already aborted, and stops its timer when the queue empties", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket({ ratePerSecond: 1, clock });
    const aborted = new AbortController();
    aborted.abort();
    await expect(bucket.acquire(aborted.signal)).rejects.toMatchObject({ code: "CANCELED" });
    expect(bucket.tryAcquire()).toBe(true);
    const controller = new AbortController();
    const waiting = bucket.acquire(controller.signal);
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "CANCELED" });
    expect(clock.pendingTimers).toBe(0);
  });

  it("validates its options", () => {
    expect(() => new TokenBucket({ ratePerSecond: 0 })).toThrow(RangeError);
    expect(() => new TokenBucket({ ratePerSecond: 1, burst: 0 })).toThrow(RangeError);
    expect(new TokenBucket({ ratePerSecond: 2.5 }).burst).toBe(3);
  });
});

describe("RateLimiterRegistry", () => {
  it("limits configured keys and lets others through", async () => {
    const clock = new ManualClock();
    const registry = new RateLimiterRegistry();
    registry.configure("weather", { ratePerSecond: 1, burst: 1, clock });
    await registry.acquire("orders");
    await registry.acquire("weather");
    let second = false;
    const pending = registry.acquire("weather").then(() => (second = true));
    await clock.advance(999);
    expect(second).toBe(false);
    await clock.advance(1);
    await pending;
    expect(second).toBe(true);
    expect(registry.get("orders")).toBeUndefined();
  });
});
