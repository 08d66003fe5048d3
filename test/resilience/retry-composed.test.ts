import { describe, expect, it } from "vitest";
import { ToolError, TransientToolError } from "../../src/errors.js";
import { CircuitBreaker } from "../../src/resilience/circuit-breaker.js";
import { callWithResilience, fallbackWorthy } from "../../src/resilience/call.js";
import { ManualClock } from "../../src/resilience/clock.js";
import { ToolLimits } from "../../src/resilience/limits.js";
import type { RetryEvent } from "../../src/resilience/retry.js";

describe("callWithResilience", () => {
  it("retries a timed-out attempt and succeeds on the next", async () => {
    const clock = new ManualClock();
    const events: RetryEvent[] = [];
    const signals: AbortSignal[] = [];
    const promise = callWithResilience(
      (attempt, signal) => {
        signals.push(signal);
        return attempt === 1 ? new Promise<string>(() => undefined) : Promise.resolve(`ok on ${attempt}`);
      },
      {
        tool: "get_weather",
        timeoutMs: 100,
        retry: { attempts: 3, initialDelayMs: 50 },
        clock,
        random: () => 0.5,
        limits: new ToolLimits(),
        breaker: new CircuitBreaker("get_weather", { clock }),
        onRetry: (e) => void events.push(e),
      },
    );
    await clock.advance(100);
    expect(signals[0]?.aborted).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 1, delayMs: 25, error: { code: "TOOL_TIMEOUT" } });
    await clock.advance(25);
    await expect(promise).resolves.toBe("ok on 2");
  });

  it("stops retrying once the breaker opens, and later calls fail fast", async () => {
    const clock = new ManualClock();
    const breaker = new CircuitBreaker("deploy", { failureThreshold: 2, cooldownMs: 10_000, clock });
    let calls = 0;
    const options = { tool: "deploy", timeoutMs: 1000, retry: { attempts: 5, initialDelayMs: 0 }, clock, breaker, limits: new ToolLimits() };
    const failing = () => {
      calls++;
      return Promise.reject(new TransientToolError("TOOL_FAILED", "503"));
    };
    const first = callWithResilience(failing, options).catch((e: unknown) => e);
    await clock.advance(0);
    await expect(first).resolves.toMatchObject({ code: "CIRCUIT_OPEN" });
    expect(calls).toBe(2);
    await expect(callWithResilience(failing, options)).rejects.toMatchObject({ code: "CIRCUIT_OPEN" });
    expect(calls).toBe(2);
  });

  it("calls cut short by the run's lost lease do not open the breaker for the runs that come after", async () => {
    const breaker = new CircuitBreaker("get_weather", { failureThreshold: 2 });
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const call = callWithResilience((_attempt, signal) => new Promise<string>((_resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason as Error));
      }), { tool: "get_weather", signal: controller.signal, breaker, limits: new ToolLimits() });
      controller.abort(Object.assign(new Error("lease lost"), { code: "LEASE_LOST" }));
      await expect(call).rejects.toMatchObject({ code: "LEASE_LOST" });
    }
    expect(breaker.state).toBe("closed");
    await expect(callWithResilience(() => Promise.resolve("sunny"), { tool: "get_weather", breaker, limits: new ToolLimits() })).resolves.toBe("sunny");
  });

  it("without timeoutMs passes the run's signal straight to the call", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const result = await callWithResilience(
      async (_attempt, signal) => {
        seen = signal;
        return "ok";
      },
      { tool: "t", signal: controller.signal, limits: new ToolLimits(), breaker: new CircuitBreaker("t") },
    );
    expect(result).toBe("ok");
    expect(seen).toBe(controller.signal);
  });

  it("falls back to another tool when the primary's circuit is open, but not on cancel or bad args", async () => {
    const breaker = new CircuitBreaker("primary", { failureThreshold: 1 });
    const limits = new ToolLimits();
    const fallback = (error: unknown) => Promise.resolve(`fallback after ${(error as { code: string }).code}`);
    const down = () => Promise.reject(new TransientToolError("TOOL_FAILED", "503"));
    await expect(callWithResilience(down, { tool: "primary", breaker, limits, fallback })).resolves.toBe("fallback after TOOL_FAILED");
    await expect(callWithResilience(down, { tool: "primary", breaker, limits, fallback })).resolves.toBe("fallback after CIRCUIT_OPEN");

    const badArgs = () => Promise.reject(new ToolError("TOOL_ARGS_INVALID", "bad"));
    await expect(callWithResilience(badArgs, { tool: "other", limits, fallback })).rejects.toMatchObject({ code: "TOOL_ARGS_INVALID" });
    const controller = new AbortController();
    controller.abort();
    await expect(callWithResilience(down, { tool: "other", limits, fallback, signal: controller.signal })).rejects.toMatchObject({
      code: "CANCELED",
    });
    expect(fallbackWorthy(new ToolError("PERMISSION_DENIED", "no"))).toBe(false);
    expect(fallbackWorthy(new ToolError("TOOL_TIMEOUT", "slow"))).toBe(true);
  });
});
