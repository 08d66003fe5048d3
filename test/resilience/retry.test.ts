import { describe, expect, it } from "vitest";
import { ToolError, TransientToolError, isTransientError } from "../../src/errors.js";
import { ManualClock } from "../../src/resilience/clock.js";
import { backoffDelay, resolveRetryPolicy, withRetry, type RetryEvent } from "../../src/resilience/retry.js";

const transient = (message = "503") => new TransientToolError("TOOL_FAILED", message);

describe("backoffDelay", () => {
  const policy = resolveRetryPolicy({ attempts: 10, initialDelayMs: 100, maxDelayMs: 1000 });

  it("doubles the ceiling per attempt and caps it", () => {
    const top = () => 0.999999999;
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, policy, top))).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it("draws uniformly below the ceiling (full jitter)", () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
  });
});

describe("isTransientError", () => {
  it("trusts a transient flag, then a transient code", () => {
    expect(isTransientError(transient())).toBe(true);
    expect(isTransientError(Object.assign(new Error("x"), { transient: true }))).toBe(true);
    expect(isTransientError(Object.assign(new Error("x"), { code: "ECONNRESET" }))).toBe(true);
    expect(isTransientError(new ToolError("TOOL_TIMEOUT", "slow"))).toBe(true);
    expect(isTransientError(Object.assign(new ToolError("TOOL_TIMEOUT", "slow"), { transient: false }))).toBe(false);
    expect(isTransientError(new ToolError("TOOL_ARGS_INVALID", "bad"))).toBe(false);
    expect(isTransientError(new ToolError("CIRCUIT_OPEN", "open"))).toBe(false);
    expect(isTransientError(new Error("plain"))).toBe(false);
    expect(isTransientError("string")).toBe(false);
  });
});

describe("withRetry", () => {
  it("retries transient failures with the reported backoff, then succeeds", async () => {
    const clock = new ManualClock();
    const events: RetryEvent[] = [];
    const seen: number[] = [];
    const promise = withRetry(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 3) throw transient(`fail ${attempt}`);
        return "ok";
      },
      { attempts: 5, initialDelayMs: 100, maxDelayMs: 1000 },
      { clock, random: () => 0.5, onRetry: (e) => void events.push(e) },
    );
    await clock.advance(0);
    expect(seen).toEqual([1]);
    expect(events.map((e) => [e.attempt, e.delayMs])).toEqual([[1, 50]]);
    await clock.advance(49);
    expect(seen).toEqual([1]);
    await clock.advance(1);
    expect(seen).toEqual([1, 2]);
    await clock.advance(100);
    await expect(promise).resolves.toBe("ok");
    expect(seen).toEqual([1, 2, 3]);
    expect(events.map((e) => [e.attempt, e.delayMs])).toEqual([[1, 50], [2, 100]]);
  });

  it("does not retry an error the policy does not call retryable", async () => {
    let calls = 0;
    const error = new ToolError("TOOL_ARGS_INVALID", "bad");
    await expect(
      withRetry(async () => {
        calls++;
        throw error;
      }, { attempts: 5 }),
    ).rejects.toBe(error);
    expect(calls).toBe(1);
  });

  it("honours a custom retryOn and rethrows the last error when attempts run out", async () => {
    let calls = 0;
    const sleeps: number[] = [];
    const promise = withRetry(
      async () => {
        calls++;
        throw new Error(`plain ${calls}`);
      },
      { attempts: 3, initialDelayMs: 10, retryOn: () => true },
      { sleep: async (ms) => void sleeps.push(ms), random: () => 0.999 },
    );
    await expect(promise).rejects.toThrow("plain 3");
    expect(calls).toBe(3);
    expect(sleeps).toEqual([9, 19]);
  });

  it("stops waiting the moment the signal aborts, with the abort reason", async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    let calls = 0;
    const promise = withRetry(
      async () => {
        calls++;
        throw transient();
      },
      { attempts: 5, initialDelayMs: 10_000 },
      { clock, random: () => 0.9, signal: controller.signal },
    );
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(1);
    const reason = new ToolError("CANCELED", "run canceled");
    controller.abort(reason);
    await expect(promise).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
    expect(calls).toBe(1);
  });

  it("passes the signal to the call and never retries once it aborted", async () => {
    const controller = new AbortController();
    let calls = 0;
    await expect(
      withRetry(
        async (_attempt, signal) => {
          calls++;
          controller.abort();
          expect(signal.aborted).toBe(true);
          throw transient();
        },
        { attempts: 5 },
        { signal: controller.signal },
      ),
    ).rejects.toBeInstanceOf(TransientToolError);
    expect(calls).toBe(1);
  });

  it("refuses to start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    await expect(withRetry(async () => ++calls, {}, { signal: controller.signal })).rejects.toMatchObject({ code: "CANCELED" });
    expect(calls).toBe(0);
  });
});
